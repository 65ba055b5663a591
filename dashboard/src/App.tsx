/** The shell: sign-in, then the settings read once, the navigation and the screen for the path. */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createApiClient, unwrap } from './lib/api.js';
import { AppProvider, toApiError, type AppContextValue, type Settings } from './lib/context.js';
import { clearSession, saveSession, takeSession, type Session } from './lib/session.js';
import { match, navigate, useLocation } from './lib/router.js';
import { ErrorText, Link, Loading } from './components/ui.js';
import { SignIn } from './screens/SignIn.js';
import { Portfolio } from './screens/Portfolio.js';
import { Backtest } from './screens/Backtest.js';
import { Clients } from './screens/Clients.js';
import { ClientPage } from './screens/ClientPage.js';
import { SuggestedClients } from './screens/SuggestedClients.js';
import { Sources } from './screens/Sources.js';
import { SettingsScreen } from './screens/Settings.js';

const NAV = [
  { href: '/', label: 'Portfolio' },
  { href: '/backtest', label: 'Churn backtest' },
  { href: '/clients', label: 'Clients' },
  { href: '/sources', label: 'Sources and jobs' },
  { href: '/settings', label: 'Settings' },
];

function Screen(props: { path: string }) {
  // A static path before `/clients/:id`, as on the server.
  if (props.path === '/clients/suggested') return <SuggestedClients />;
  const client = match('/clients/:id', props.path);
  if (client) return <ClientPage clientId={client.id!} />;
  switch (props.path) {
    case '/':
      return <Portfolio />;
    case '/backtest':
      return <Backtest />;
    case '/clients':
      return <Clients />;
    case '/sources':
      return <Sources />;
    case '/settings':
      return <SettingsScreen />;
    default:
      return (
        <main id="main" class="screen">
          <h1>Not found</h1>
          <p>
            There is no page at {props.path}. <Link href="/">Back to the portfolio</Link>
          </p>
        </main>
      );
  }
}

export function App(props: { initialSession?: Session | null }) {
  const [session, setSession] = useState<Session | null>(() => (props.initialSession !== undefined ? props.initialSession : takeSession()));
  const [message, setMessage] = useState<string | undefined>(undefined);
  const [settings, setSettings] = useState<Settings | undefined>(undefined);
  const [settingsError, setSettingsError] = useState<ApiError | undefined>(undefined);
  const [settingsTick, setSettingsTick] = useState(0);
  const { path } = useLocation();

  const signOut = useCallback((why?: string) => {
    clearSession();
    setSession(null);
    setSettings(undefined);
    setMessage(why ? `Signed out: ${why}. Sign in again with a valid key.` : undefined);
  }, []);
  const api = useMemo(() => (session ? createApiClient(session.key) : null), [session]);

  useEffect(() => {
    if (!api || !session) return;
    let live = true;
    unwrap(api.GET('/api/settings', { params: { query: { workspaceId: session.workspace } } })).then(
      (s) => live && (setSettings(s), setSettingsError(undefined)),
      (err: unknown) => {
        if (!live) return;
        const e = toApiError(err);
        if (e.status === 401 || e.status === 403) signOut(e.message.replace(/\.$/, ''));
        else setSettingsError(e);
      },
    );
    return () => {
      live = false;
    };
  }, [api, session, settingsTick, signOut]);

  if (!session || !api) {
    return (
      <SignIn
        message={message}
        onSignedIn={(s) => {
          saveSession(s);
          setMessage(undefined);
          setSession(s);
        }}
      />
    );
  }
  if (!settings) {
    return (
      <main id="main" class="screen">
        {settingsError ? <ErrorText error={settingsError} retry={() => setSettingsTick((t) => t + 1)} /> : <Loading what="the workspace" />}
      </main>
    );
  }
  const value: AppContextValue = {
    api,
    workspace: session.workspace,
    settings,
    locale: { timeZone: settings.workspace.timezone, currency: settings.workspace.currency },
    reloadSettings: () => setSettingsTick((t) => t + 1),
    signOut,
  };
  const current = (href: string) => (href === '/' ? path === '/' : path === href || path.startsWith(`${href}/`));
  return (
    <AppProvider value={value}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">
          <strong>Customer Health</strong> <span class="muted">{settings.workspace.workspaceName}</span>
        </div>
        <nav aria-label="Main">
          {NAV.map((n) => (
            <Link href={n.href} aria-current={current(n.href) ? 'page' : undefined}>
              {n.label}
            </Link>
          ))}
        </nav>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            signOut();
            navigate('/');
          }}
        >
          Sign out
        </button>
      </header>
      <Screen path={path} />
    </AppProvider>
  );
}
