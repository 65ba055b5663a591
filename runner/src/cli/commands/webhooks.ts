/**
 * `chs webhooks create|list|update|delete|test|rotate-secret|deliveries|redeliver`: a workspace's
 * webhook endpoints without HTTP (docs/events.md). The `whsec_` secret is printed once, by create
 * and rotate-secret, on stdout and nowhere else. `test` and `redeliver` only queue: the running
 * `chs serve` (any runner on the database) delivers.
 */
import type { Command } from 'commander';
import {
  ChsError,
  createEndpoint,
  deleteEndpoint,
  DELIVERY_STATES,
  ENDPOINT_KINDS,
  EVENT_TYPES,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  loadOrCreateSecretKey,
  redeliver,
  requireWorkspace,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
  type Db,
  type EndpointKind,
  type TargetPolicy,
  type UpdateEndpointInput,
  type WebhookEndpoint,
} from '@chs/core';
import { DEFAULT_WEBHOOKS_CONFIG, type RunnerConfig } from '../../config.js';
import { deliveryView, webhookView } from '../../http/responses/webhooks.js';
import { printJson, withEngine, type CliContext } from '../context.js';
import { writeTable } from '../table.js';
import type { RegisterCommand } from './index.js';

const policyOf = (config: RunnerConfig): TargetPolicy => {
  const w = config.webhooks ?? DEFAULT_WEBHOOKS_CONFIG;
  return { allowPrivate: w.allowPrivate, allowHttp: w.allowHttp };
};

/** `--events a,b` or `all` (every type an endpoint may choose). Unknown names are refused by the core, naming the known ones. */
function parseEvents(value: string): string[] {
  if (value.trim() === 'all') return [...EVENT_TYPES];
  const list = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (list.length === 0) throw new ChsError('INVALID_INPUT', `--events: one or more of ${EVENT_TYPES.join(', ')}, comma-separated, or all`);
  return list;
}

function parseKind(value: string | undefined): EndpointKind | undefined {
  if (value === undefined) return undefined;
  const kind = ENDPOINT_KINDS.find((k) => k === value);
  if (!kind) throw new ChsError('INVALID_INPUT', `--kind must be ${ENDPOINT_KINDS.join(' or ')}, got "${value}"`);
  return kind;
}

async function requireEndpoint(db: Db, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const found = await getEndpoint(db, workspaceId, id);
  if (!found) throw new ChsError('NOT_FOUND', `webhook endpoint ${id} not found in ${workspaceId} (chs webhooks list --workspace ${workspaceId})`);
  return found;
}

const state = (e: WebhookEndpoint): string =>
  e.enabled
    ? e.failingSince
      ? `failing since ${e.failingSince}`
      : 'enabled'
    : `disabled (${e.disabledReason === 'user' ? 'by a user' : e.disabledReason === 'gone' ? 'the receiver answered 410' : 'failing for days'})`;

interface WorkspaceFlags {
  workspace: string;
  json?: boolean;
}

interface CreateFlags extends WorkspaceFlags {
  url: string;
  events: string;
  kind?: string;
  description?: string;
}

interface UpdateFlags extends WorkspaceFlags {
  url?: string;
  events?: string;
  description?: string;
  enable?: boolean;
  disable?: boolean;
}

interface DeliveriesFlags extends WorkspaceFlags {
  state?: string;
  limit?: string;
}

const TAIL = (ws: string, id: string) => `follow it with: chs webhooks deliveries ${id} --workspace ${ws}`;

export const register: RegisterCommand = (program, ctx: CliContext) => {
  const webhooks = program.command('webhooks').description('manage webhook endpoints: signed events (Standard Webhooks) or Slack messages');

  webhooks
    .command('create')
    .description('create an endpoint (its signing secret is printed once)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--url <url>', 'https URL to POST the events to (a Slack incoming-webhook URL with --kind slack)')
    .requiredOption('--events <types>', `comma-separated event types, or all: ${EVENT_TYPES.join(', ')}`)
    .option('--kind <kind>', `${ENDPOINT_KINDS.join(' or ')} (default standard)`)
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'print the endpoint with its "secret" and "workspaceId"')
    .action(async (flags: CreateFlags, cmd: Command) =>
      withEngine(ctx, cmd, async (engine, config) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const kind = parseKind(flags.kind);
        const { endpoint, secret } = await createEndpoint(
          engine.store.db,
          loadOrCreateSecretKey(config.dataDir, config.secretKey),
          {
            workspaceId: ws.id,
            url: flags.url,
            events: parseEvents(flags.events),
            ...(kind ? { kind } : {}),
            ...(flags.description !== undefined ? { description: flags.description } : {}),
          },
          policyOf(config),
        );
        if (flags.json) {
          printJson(ctx, { ...webhookView(endpoint), secret, workspaceId: ws.id });
          return;
        }
        ctx.stdout.write(
          `Created ${endpoint.kind} webhook endpoint ${endpoint.id} for ${ws.id}, receiving ${endpoint.events.join(', ')}.\n` +
            `Its signing secret, shown once; store it now (receivers verify the webhook-signature header with it):\n\n  ${secret}\n\n` +
            `Send it a test event: chs webhooks test ${endpoint.id} --workspace ${ws.id}\n`,
        );
      }),
    );

  webhooks
    .command('list')
    .description('list the workspace’s endpoints (never their secrets)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print a JSON array of endpoints')
    .action(async (flags: WorkspaceFlags, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const list = await listEndpoints(engine.store.db, ws.id);
        if (flags.json) {
          printJson(ctx, list.map(webhookView));
          return;
        }
        if (list.length === 0) {
          ctx.stdout.write(`No webhook endpoints in ${ws.id}.\n`);
          return;
        }
        writeTable(ctx, [
          ['ID', 'KIND', 'URL', 'EVENTS', 'STATE', 'DESCRIPTION'],
          ...list.map((e) => [e.id, e.kind, e.url, e.events.join(','), state(e), e.description ?? '']),
        ]);
      }),
    );

  webhooks
    .command('update <id>')
    .description('change an endpoint’s URL, event types or description; --disable stops deliveries, --enable resumes them')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--url <url>', 'a new target URL')
    .option('--events <types>', 'the new comma-separated event types, or all')
    .option('--description <text>', 'a new description')
    .option('--enable', 'enable it (its pending deliveries go out)')
    .option('--disable', 'disable it')
    .option('--json', 'print the endpoint')
    .action(async (id: string, flags: UpdateFlags, cmd: Command) =>
      withEngine(ctx, cmd, async (engine, config) => {
        if (flags.enable && flags.disable) throw new ChsError('INVALID_INPUT', '--enable and --disable go one at a time');
        const patch: UpdateEndpointInput = {
          ...(flags.url !== undefined ? { url: flags.url } : {}),
          ...(flags.events !== undefined ? { events: parseEvents(flags.events) } : {}),
          ...(flags.description !== undefined ? { description: flags.description } : {}),
          ...(flags.enable ? { enabled: true } : flags.disable ? { enabled: false } : {}),
        };
        if (Object.keys(patch).length === 0)
          throw new ChsError('INVALID_INPUT', 'nothing to change: give --url, --events, --description, --enable or --disable');
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const endpoint = await updateEndpoint(engine.store.db, ws.id, id, patch, policyOf(config));
        if (flags.json) printJson(ctx, webhookView(endpoint));
        else ctx.stdout.write(`Updated ${endpoint.id} (${state(endpoint)}): ${endpoint.url}, receiving ${endpoint.events.join(', ')}.\n`);
      }),
    );

  webhooks
    .command('delete <id>')
    .description('delete an endpoint and its deliveries for good')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {"id","workspaceId","deleted"}')
    .action(async (id: string, flags: WorkspaceFlags, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        if (!(await deleteEndpoint(engine.store.db, ws.id, id))) throw new ChsError('NOT_FOUND', `webhook endpoint ${id} not found in ${ws.id}`);
        if (flags.json) printJson(ctx, { id, workspaceId: ws.id, deleted: true });
        else ctx.stdout.write(`Deleted webhook endpoint ${id} from ${ws.id}, with its deliveries.\n`);
      }),
    );

  webhooks
    .command('test <id>')
    .description('queue a webhook.test event for this endpoint; the running chs serve delivers it')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {"eventId","deliveryId"}')
    .action(async (id: string, flags: WorkspaceFlags, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const queued = await sendTestEvent(engine.store.db, ws.id, id);
        if (flags.json) {
          printJson(ctx, queued);
          return;
        }
        const endpoint = await requireEndpoint(engine.store.db, ws.id, id);
        ctx.stdout.write(
          `Queued test event ${queued.eventId} (delivery ${queued.deliveryId}) for ${id}. This command does not send it: ` +
            `the running chs serve (any runner on this database) delivers it within a second or so; ${TAIL(ws.id, id)}\n`,
        );
        if (!endpoint.enabled)
          ctx.stdout.write(
            `The endpoint is disabled: a test event goes all the same; other events wait until it is enabled (chs webhooks update ${id} --workspace ${ws.id} --enable).\n`,
          );
      }),
    );

  webhooks
    .command('rotate-secret <id>')
    .description('make a new signing secret (printed once); the previous one still signs, beside it, for 24 hours')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {"webhook","secret","previousSecretValidUntil"}')
    .action(async (id: string, flags: WorkspaceFlags, cmd: Command) =>
      withEngine(ctx, cmd, async (engine, config) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const r = await rotateEndpointSecret(engine.store.db, loadOrCreateSecretKey(config.dataDir, config.secretKey), ws.id, id);
        if (flags.json) {
          printJson(ctx, { webhook: webhookView(r.endpoint), secret: r.secret, previousSecretValidUntil: r.previousValidUntil });
          return;
        }
        ctx.stdout.write(
          `New signing secret for ${id}, shown once; store it now:\n\n  ${r.secret}\n\n` +
            `Until ${r.previousValidUntil} every delivery is signed with both the new and the previous secret, so receivers can switch over.\n`,
        );
      }),
    );

  webhooks
    .command('deliveries <id>')
    .description('an endpoint’s deliveries, newest first, with their attempts')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--state <state>', `only ${DELIVERY_STATES.join(', ')} ones`)
    .option('--limit <n>', 'at most this many, 1-200 (default 50)')
    .option('--json', 'print {"deliveries":[…],"total"}')
    .action(async (id: string, flags: DeliveriesFlags, cmd: Command) => {
      const wanted = flags.state === undefined ? undefined : DELIVERY_STATES.find((s) => s === flags.state);
      if (flags.state !== undefined && !wanted)
        throw new ChsError('INVALID_INPUT', `--state must be one of ${DELIVERY_STATES.join(', ')}, got "${flags.state}"`);
      const limit = flags.limit === undefined ? 50 : Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new ChsError('INVALID_INPUT', '--limit must be an integer from 1 to 200');
      await withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        await requireEndpoint(engine.store.db, ws.id, id);
        const page = await listDeliveries(engine.store.db, { workspaceId: ws.id, endpointId: id, limit, ...(wanted ? { state: wanted } : {}) });
        if (flags.json) {
          printJson(ctx, { deliveries: page.deliveries.map(deliveryView), total: page.total });
          return;
        }
        if (page.total === 0) {
          ctx.stdout.write(`No ${wanted ? `${wanted} ` : ''}deliveries for ${id}.\n`);
          return;
        }
        writeTable(ctx, [
          ['ID', 'EVENT', 'TYPE', 'STATE', 'ATTEMPTS', 'LAST ANSWER', 'WHEN'],
          ...page.deliveries.map((d) => [
            d.id,
            d.eventId,
            d.eventType,
            d.state,
            String(d.attempts),
            d.lastStatus !== null ? `HTTP ${d.lastStatus}` : (d.lastError ?? '-'),
            d.state === 'succeeded' ? `delivered ${d.deliveredAt}` : d.state === 'pending' ? `next ${d.nextAttemptAt}` : `last tried ${d.lastAttemptAt ?? '-'}`,
          ]),
        ]);
        if (page.total > page.deliveries.length) ctx.stdout.write(`(${page.deliveries.length} of ${page.total}; raise --limit to see more)\n`);
      });
    });

  webhooks
    .command('redeliver <id> <deliveryId>')
    .description('send a delivery again, with the same webhook-id; the running chs serve sends it')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print the delivery')
    .action(async (id: string, deliveryId: string, flags: WorkspaceFlags, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        await requireEndpoint(engine.store.db, ws.id, id);
        const d = await redeliver(engine.store.db, ws.id, id, deliveryId);
        if (!d) throw new ChsError('NOT_FOUND', `delivery ${deliveryId} of webhook endpoint ${id} not found`);
        if (flags.json) printJson(ctx, deliveryView(d));
        else ctx.stdout.write(`Queued ${deliveryId} (event ${d.eventId}) again; the running chs serve sends it; ${TAIL(ws.id, id)}\n`);
      }),
    );
};
