/**
 * Sign-in (DESIGN.md): the workspace and key come from the URL fragment
 * `#workspace=<domain>&key=<sk-…>` — which browsers never send to the server — or from the
 * sign-in form. The fragment is removed from the address bar at once; the key is kept in
 * sessionStorage (this tab only, gone when it closes).
 */
export interface Session {
  workspace: string;
  key: string;
}

const STORAGE_KEY = 'chs.session';

/** The session a fragment carries, or null. */
export function sessionFromFragment(hash: string): Session | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const workspace = params.get('workspace')?.trim().toLowerCase();
  const key = params.get('key')?.trim();
  if (!workspace || !key || !key.startsWith('sk-')) return null;
  return { workspace, key };
}

function isSession(v: unknown): v is Session {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.workspace === 'string' && typeof o.key === 'string' && o.key.startsWith('sk-');
}

export function loadSession(storage: Storage = sessionStorage): Session | null {
  const text = storage.getItem(STORAGE_KEY);
  if (!text) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isSession(v) ? v : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session, storage: Storage = sessionStorage): void {
  storage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(storage: Storage = sessionStorage): void {
  storage.removeItem(STORAGE_KEY);
}

/**
 * At start-up: a session in the fragment replaces the stored one, and the fragment leaves the
 * address bar (and so the history) before anything else runs. Otherwise the stored session.
 */
export function takeSession(loc: Location = location, hist: History = history, storage: Storage = sessionStorage): Session | null {
  if (loc.hash.length > 1) {
    const fromFragment = sessionFromFragment(loc.hash);
    if (fromFragment || /(^#|&)(key|workspace)=/.test(loc.hash)) hist.replaceState(null, '', loc.pathname + loc.search);
    if (fromFragment) {
      saveSession(fromFragment, storage);
      return fromFragment;
    }
  }
  return loadSession(storage);
}
