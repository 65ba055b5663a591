/** Small shared pieces: loading and empty states, errors in words, links, cards, arrows. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError } from '../lib/api.js';
import { navigate } from '../lib/router.js';

export function Loading(props: { what?: string }) {
  return (
    <p class="muted loading" role="status">
      Loading{props.what ? ` ${props.what}` : ''}…
    </p>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="muted empty">{props.children}</p>;
}

/** The API's `error` text, in words, with its code for support. */
export function ErrorText(props: { error: ApiError | undefined; retry?: () => void }) {
  if (!props.error) return null;
  return (
    <div class="error" role="alert">
      <span>{props.error.message}</span> <span class="muted code">({props.error.code})</span>
      {props.retry && (
        <button type="button" class="link" onClick={props.retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Link(props: { href: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' | undefined }) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props['aria-current']}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}

export function Card(props: { title: string; children: ComponentChildren; class?: string; id?: string }) {
  const id = props.id ?? `card-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section class={`card ${props.class ?? ''}`} aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.children}
    </section>
  );
}

export function Stat(props: { label: string; value: string; detail?: ComponentChildren; tone?: 'bad' | 'good' | undefined }) {
  return (
    <div class={`stat ${props.tone ?? ''}`}>
      <div class="stat-label">{props.label}</div>
      <div class="stat-value">{props.value}</div>
      {props.detail !== undefined && <div class="stat-detail">{props.detail}</div>}
    </div>
  );
}

/** ↑ ↓ → for a change, with words for screen readers. */
export function TrendArrow(props: { change: number | null | undefined; min?: number }) {
  const min = props.min ?? 1;
  const c = props.change;
  if (c === null || c === undefined)
    return (
      <span class="muted" aria-label="no change known">
        ·
      </span>
    );
  if (c >= min)
    return (
      <span class="up" title={`up ${c.toFixed(1)}`} aria-label={`up ${c.toFixed(1)}`}>
        ↑
      </span>
    );
  if (c <= -min)
    return (
      <span class="down" title={`down ${Math.abs(c).toFixed(1)}`} aria-label={`down ${Math.abs(c).toFixed(1)}`}>
        ↓
      </span>
    );
  return (
    <span class="flat" title="stable" aria-label="stable">
      →
    </span>
  );
}

/** A score with its colour band against the risk threshold. */
export function Score(props: { score: number; threshold: number }) {
  const band = props.score < props.threshold ? 'bad' : props.score < props.threshold + 20 ? 'warn' : 'good';
  return <span class={`score ${band}`}>{props.score.toFixed(1)}</span>;
}

/** Wraps a table so it scrolls sideways on a phone instead of overflowing the page. */
export function TableWrap(props: { children: ComponentChildren; label: string }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/** A secret shown this once (a new API key, a webhook's signing secret): its value, a copy button, and Done (the caller then forgets it). */
export function ShownOnce(props: { value: string; testId: string; copyLabel: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="row wrap">
      <code class="key" data-testid={props.testId}>
        {props.value}
      </code>
      <button
        type="button"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(props.value);
            setCopied(true);
          } catch {
            setCopied(false);
          }
        }}
      >
        {copied ? 'Copied' : props.copyLabel}
      </button>
      <button type="button" class="secondary" onClick={props.onDone}>
        Done
      </button>
    </div>
  );
}
