/** Client-side routes on the History API; `chs serve` answers index.html for every such path. */
import { useEffect, useState } from 'preact/hooks';

const NAVIGATE = 'chs:navigate';

export function navigate(path: string): void {
  if (path === location.pathname + location.search) return;
  history.pushState(null, '', path);
  dispatchEvent(new Event(NAVIGATE));
  window.scrollTo?.(0, 0);
}

/** The current path and query, re-rendered on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname, query: new URLSearchParams(location.search) });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const on = () => setLoc(read());
    addEventListener('popstate', on);
    addEventListener(NAVIGATE, on);
    return () => {
      removeEventListener('popstate', on);
      removeEventListener(NAVIGATE, on);
    };
  }, []);
  return loc;
}

/** A route pattern like `/clients/:id` matched against a path: its parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i]!;
    const seg = s[i]!;
    if (part.startsWith(':')) out[part.slice(1)] = decodeURIComponent(seg);
    else if (part !== seg) return null;
  }
  return out;
}
