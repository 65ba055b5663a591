/** The sign-in form: workspace domain and API key, checked against the API before entering. */
import { useState } from 'preact/hooks';
import { createApiClient, unwrap, ApiError } from '../lib/api.js';
import type { Session } from '../lib/session.js';

export function SignIn(props: { message?: string | undefined; onSignedIn(session: Session): void }) {
  const [workspace, setWorkspace] = useState('');
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const session = { workspace: workspace.trim().toLowerCase(), key: key.trim() };
    if (!session.workspace || !session.key.startsWith('sk-')) {
      setError('Enter the workspace domain and an API key (it starts with sk-).');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await unwrap(createApiClient(session.key).GET('/api/settings/user', { params: { query: { workspaceId: session.workspace } } }));
      props.onSignedIn(session);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin" id="main">
      <form class="card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Customer Health</h1>
        <p class="muted">Sign in with your workspace and an API key.</p>
        {props.message && (
          <p class="notice" role="alert">
            {props.message}
          </p>
        )}
        <label>
          Workspace domain
          <input
            name="workspace"
            autoComplete="organization"
            placeholder="acme.com"
            value={workspace}
            onInput={(e) => setWorkspace(e.currentTarget.value)}
            required
          />
        </label>
        <label>
          API key
          <input name="key" type="password" autoComplete="off" placeholder="sk-…" value={key} onInput={(e) => setKey(e.currentTarget.value)} required />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">The key stays in this browser tab only (session storage) and is sent to this server's API, nowhere else.</p>
      </form>
    </main>
  );
}
