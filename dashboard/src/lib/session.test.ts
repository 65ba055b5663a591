// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { loadSession, sessionFromFragment, takeSession } from './session.js';

afterEach(() => {
  sessionStorage.clear();
  history.replaceState(null, '', '/');
});

describe('sign-in from the URL fragment', () => {
  it('reads the workspace and key of #workspace=…&key=sk-…, and refuses anything else', () => {
    expect(sessionFromFragment('#workspace=OurCo.com&key=sk-abc_-1')).toEqual({ workspace: 'ourco.com', key: 'sk-abc_-1' });
    expect(sessionFromFragment('#workspace=ourco.com&key=abc')).toBeNull();
    expect(sessionFromFragment('#workspace=&key=sk-abc')).toBeNull();
    expect(sessionFromFragment('#key=sk-abc')).toBeNull();
    expect(sessionFromFragment('')).toBeNull();
  });

  it('takes the session from the fragment into session storage and removes the fragment from the address bar at once', () => {
    history.replaceState(null, '', '/clients?x=1#workspace=ourco.com&key=sk-secret');
    expect(location.hash).toBe('#workspace=ourco.com&key=sk-secret');
    const s = takeSession();
    expect(s).toEqual({ workspace: 'ourco.com', key: 'sk-secret' });
    expect(location.hash).toBe('');
    expect(location.pathname + location.search).toBe('/clients?x=1');
    expect(location.href).not.toContain('sk-secret');
    expect(loadSession()).toEqual(s);
    // The next start (a reload) finds it in the tab's storage.
    expect(takeSession()).toEqual(s);
  });

  it('strips a fragment with a malformed key too, and keeps the stored session', () => {
    sessionStorage.setItem('chs.session', JSON.stringify({ workspace: 'ourco.com', key: 'sk-stored' }));
    history.replaceState(null, '', '/#workspace=ourco.com&key=oops');
    expect(takeSession()).toEqual({ workspace: 'ourco.com', key: 'sk-stored' });
    expect(location.hash).toBe('');
  });

  it('ignores a stored value of another shape', () => {
    sessionStorage.setItem('chs.session', '{"workspace":1}');
    expect(loadSession()).toBeNull();
    sessionStorage.setItem('chs.session', 'not json');
    expect(loadSession()).toBeNull();
  });
});
