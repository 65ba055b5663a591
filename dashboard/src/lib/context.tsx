/** What every screen reads: the API client, the workspace, its locale, and how to sign out. */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type ApiClient, type Answer } from './api.js';
import type { Locale } from './format.js';

export type Settings = Answer<'/api/settings'>;

export interface AppContextValue {
  api: ApiClient;
  workspace: string;
  locale: Locale;
  settings: Settings;
  /** Re-reads the settings (after a change on the settings screen). */
  reloadSettings: () => void;
  /** Ends the session and shows the sign-in form with this message. */
  signOut(message?: string): void;
}

const AppContext = createContext<AppContextValue | null>(null);

export function AppProvider(props: { value: AppContextValue; children: ComponentChildren }) {
  return <AppContext.Provider value={props.value}>{props.children}</AppContext.Provider>;
}

export function useApp(): AppContextValue {
  const v = useContext(AppContext);
  if (!v) throw new Error('useApp outside AppProvider');
  return v;
}

export interface Query<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  /** A function property (not a method): handed around as a callback. */
  reload: () => void;
}

/**
 * Runs `load` when `deps` change (and on reload); the last answer wins. A 401 signs out with the
 * API's message; any other error is returned to show in words.
 */
export function useQuery<T>(load: (ctx: AppContextValue) => Promise<T>, deps: unknown[]): Query<T> {
  const ctx = useApp();
  const [state, setState] = useState<{ data: T | undefined; error: ApiError | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load(ctx).then(
      (data) => {
        if (mine === seq.current) setState({ data, error: undefined, loading: false });
      },
      (err: unknown) => {
        if (mine !== seq.current) return;
        const e = toApiError(err);
        if (e.status === 401) ctx.signOut(e.message);
        else setState((s) => ({ data: s.data, error: e, loading: false }));
      },
    );
    // The caller names the dependencies (`load` is a new function every render).
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : new ApiError(0, 'CLIENT_ERROR', err instanceof Error ? err.message : String(err));
}

/** An action (a button): its running state and error; a 401 signs out. */
export function useAction<A extends unknown[], T>(
  run: (ctx: AppContextValue, ...args: A) => Promise<T>,
): {
  run: (...args: A) => Promise<T | undefined>;
  busy: boolean;
  error: ApiError | undefined;
  clearError(): void;
} {
  const ctx = useApp();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const go = async (...args: A): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await run(ctx, ...args);
    } catch (err) {
      const e = toApiError(err);
      if (e.status === 401) ctx.signOut(e.message);
      else setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run: go, busy, error, clearError: () => setError(undefined) };
}
