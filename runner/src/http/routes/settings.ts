/**
 * GET/PUT /settings, GET /settings/user, POST /settings/complete-onboarding, POST /settings/confirm-email.
 * `profile.*` is the calling key's user; `workspace.*` is the workspace's settings document.
 *
 * Two fields decide where the server sends mail and as whom, so a key holder cannot set them
 * freely: `notifications.emailFrom` must be on the workspace's domains or the operator allow-list;
 * a new `profile.email` is only kept aside until the token mailed to it comes back
 * (POST /settings/confirm-email), and alerts and digests keep going to the confirmed address.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import {
  assertSenderAllowed,
  ChsError,
  completeOnboarding,
  confirmEmailChange,
  DISCOVERY_POLICIES,
  getSettings,
  getUser,
  requestEmailChange,
  requireWorkspace,
  updateSettings,
  updateUserProfile,
  type Db,
  type User,
  type WorkspaceSettings,
} from '@chs/core';
import { reserveOnDemand, whereSent, type OnDemandSlot } from '../../notify/on-demand.js';
import { createMailer, type Mailer } from '../../notify/mailer.js';
import { HttpError } from '../errors.js';
import { SuccessMessage, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';

const strict = { additionalProperties: false } as const;

const Profile = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    title: Type.String({ maxLength: 200 }),
  },
  strict,
);

const Notifications = Type.Object(
  {
    channels: Type.Object({ email: Type.Boolean() }, strict),
    dailyDigest: Type.Boolean(),
    weeklyDigest: Type.Boolean(),
    alertOnScoreDrop: Type.Boolean(),
    alertOnRiskSignals: Type.Boolean({
      description: 'Engine extension: alert at once when a client states an intent to leave (churn_intent) or escalates (escalation)',
    }),
    scoreDropPct: Type.Number({ minimum: 0, maximum: 100, description: 'Percent, 0-100' }),
    alertOnRenewals: Type.Boolean(),
    renewalsAheadDays: Type.Integer({ minimum: 1, maximum: 365, description: 'Days, 1-365' }),
    emailFrom: Type.String({ format: 'email', maxLength: 254 }),
  },
  strict,
);

const HealthWeights = Type.Object(
  {
    sentiment: Type.Number({ minimum: 0, maximum: 100 }),
    engagement: Type.Number({ minimum: 0, maximum: 100 }),
    responsiveness: Type.Number({ minimum: 0, maximum: 100 }),
    recency: Type.Number({ minimum: 0, maximum: 100 }),
  },
  { ...strict, description: 'Engine extension: relative weights of the health components (normalised; not all zero)' },
);

const EventSettings = Type.Object(
  {
    scoreChangeMinDelta: Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'client.score_changed fires when a client’s score moved at least this much (points, 0-100) since the score it last announced; default 10',
    }),
  },
  { ...strict, description: 'Engine extension: what the events (webhooks, engine.events) announce (docs/events.md)' },
);

const WorkspaceSettingsSchema = Type.Object(
  {
    workspaceName: Type.String({ minLength: 1, maxLength: 200 }),
    domain: Type.String({ description: 'The workspace id; read-only (a PUT may repeat it, not change it)' }),
    timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Paris' }),
    currency: Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 code, e.g. EUR' }),
    defaultWindowDays: Type.Integer({ minimum: 1, maximum: 365 }),
    riskThreshold: Type.Number({ minimum: 0, maximum: 100 }),
    dataRetentionDays: Type.Integer({ minimum: 1, maximum: 3650 }),
    notifications: Notifications,
    healthWeights: HealthWeights,
    syncIntervalMinutes: Type.Integer({ minimum: 5, maximum: 1440, description: 'Engine extension: minutes between scheduled quick syncs' }),
    replySlaBusinessDays: Type.Integer({
      minimum: 1,
      maximum: 20,
      description:
        "Engine extension: business days (Mon–Fri in the workspace's time zone) within which a client's e-mail asking for an answer should get one; past it, it counts as unanswered in the health score",
    }),
    clientDiscovery: Type.Union(
      DISCOVERY_POLICIES.map((p) => Type.Literal(p)),
      {
        description:
          'Engine extension: who becomes a scored client from mail. crm_only: only clients from the CRM or an import; conversations (default): we wrote to them, ' +
          'or a person there wrote to us directly; every_sender: any external sender. Every other domain our mail names is a suggested client (GET /clients/suggested).',
      },
    ),
    events: EventSettings,
  },
  strict,
);

const ProfileView = Type.Object({
  ...Profile.properties,
  pendingEmail: Type.Optional(
    Type.String({
      description:
        'Engine extension: a new address waiting for confirmation (POST /settings/confirm-email); `email` stays in use until then. Absent when none.',
    }),
  ),
});

const SettingsResponse = Type.Object({ profile: ProfileView, workspace: WorkspaceSettingsSchema });

/** Every field optional at every depth; unknown fields still rejected. */
const SettingsPatch = Type.Object(
  {
    profile: Type.Optional(Type.Partial(Profile, strict)),
    workspace: Type.Optional(
      Type.Partial(
        Type.Object(
          {
            ...WorkspaceSettingsSchema.properties,
            notifications: Type.Partial(
              Type.Object({ ...Notifications.properties, channels: Type.Partial(Notifications.properties.channels, strict) }, strict),
              strict,
            ),
            healthWeights: Type.Partial(HealthWeights, strict),
            events: Type.Partial(EventSettings, strict),
          },
          strict,
        ),
        strict,
      ),
    ),
  },
  strict,
);
type SettingsPatch = Static<typeof SettingsPatch>;

const UserInfo = Type.Object({
  user: Type.Object({
    email: Type.String(),
    name: Type.String(),
    title: Type.String(),
    hasCompletedOnboarding: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    lastLoginAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Last use of any of the user’s keys; null when never' }),
  }),
  workspace: Type.Object({ domain: Type.String(), name: Type.String(), plan: Type.String(), billingStatus: Type.String() }),
});

const TIME_ZONE_SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** The canonical name of an IANA zone (`europe/paris` → `Europe/Paris`), or null. */
function canonicalTimeZone(tz: string): string | null {
  if (!TIME_ZONE_SHAPE.test(tz)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

let currencies: Set<string> | undefined;
/** The upper-cased ISO 4217 code, or null when the runtime does not know it. */
function canonicalCurrency(code: string): string | null {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  const upper = code.toUpperCase();
  return currencies.has(upper) ? upper : null;
}

const invalid = (message: string) => new HttpError('VALIDATION_ERROR', message);

/** Checks the rules a schema cannot express; returns the patch with canonical values. */
function checkPatch(patch: SettingsPatch, workspaceId: string): SettingsPatch {
  const ws = patch.workspace;
  if (!ws) return patch;
  const out = { ...ws };
  if (ws.timezone !== undefined) {
    const tz = canonicalTimeZone(ws.timezone);
    if (!tz) throw invalid(`body.workspace.timezone: "${ws.timezone}" is not an IANA time zone (e.g. Europe/Paris)`);
    out.timezone = tz;
  }
  if (ws.currency !== undefined) {
    const c = canonicalCurrency(ws.currency);
    if (!c) throw invalid(`body.workspace.currency: "${ws.currency}" is not an ISO 4217 currency code (e.g. EUR)`);
    out.currency = c;
  }
  if (ws.domain !== undefined && ws.domain.trim().toLowerCase() !== workspaceId) {
    throw invalid('body.workspace.domain: the domain is the workspace id and cannot be changed');
  }
  delete out.domain;
  if (ws.workspaceName !== undefined) {
    if (ws.workspaceName.trim() === '') throw invalid('body.workspace.workspaceName: must not be blank');
    out.workspaceName = ws.workspaceName.trim();
  }
  return { ...patch, workspace: out };
}

function settingsView(user: User, s: WorkspaceSettings): Static<typeof SettingsResponse> {
  return {
    profile: { name: user.name, email: user.email, title: user.title, ...(user.pendingEmail !== null ? { pendingEmail: user.pendingEmail } : {}) },
    workspace: {
      workspaceName: s.workspaceName,
      domain: s.domain,
      timezone: s.timezone,
      currency: s.currency,
      defaultWindowDays: s.defaultWindowDays,
      riskThreshold: s.riskThreshold,
      dataRetentionDays: s.dataRetentionDays,
      notifications: s.notifications,
      healthWeights: s.healthWeights,
      syncIntervalMinutes: s.syncIntervalMinutes,
      replySlaBusinessDays: s.replySlaBusinessDays,
      clientDiscovery: s.clientDiscovery,
      events: { scoreChangeMinDelta: s.events.scoreChangeMinDelta },
    },
  };
}

async function requireUser(db: Db, userId: string): Promise<User> {
  const user = await getUser(db, userId);
  if (!user) throw new ChsError('NOT_FOUND', 'the user of this API key no longer exists');
  return user;
}

const CONFIRM_EMAIL_PATH = '/api/settings/confirm-email';

/** The confirmation e-mail sent to a new address: the token and the two ways to hand it back. */
function confirmationText(user: User, workspaceId: string, email: string, token: string, expiresAt: string): string {
  return (
    `Hello ${user.name},\n\n` +
    `someone with an API key of workspace ${workspaceId} on the Customer Health Service asked to send its alerts and digests for ${user.email} to this address (${email}) from now on.\n\n` +
    `Nothing changes until this token comes back; it works once, until ${expiresAt}:\n\n    ${token}\n\n` +
    'To confirm, with an API key of the workspace:\n\n' +
    `    curl -X POST -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d '{"token":"${token}"}' "<server>${CONFIRM_EMAIL_PATH}?workspaceId=${workspaceId}"\n\n` +
    `or on the server:  echo '${token}' | chs profile confirm-email --workspace ${workspaceId}\n\n` +
    'If you did not ask for this, ignore this e-mail: the address stays as it was.\n'
  );
}

export const settingsRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['settings'];
    const allowList = deps.config.emailFromAllowList ?? [];
    // buildApp always passes its mailer; a module registered on its own makes one like buildApp's.
    let mailer: Mailer | undefined = deps.mailer;
    const getMailer = (): Mailer =>
      (mailer ??= createMailer({ ...(deps.config.smtpUrl ? { smtpUrl: deps.config.smtpUrl } : {}), outboxDir: join(deps.config.dataDir, 'outbox') }));

    app.get(
      '/settings',
      {
        schema: {
          tags,
          operationId: 'getSettings',
          summary: 'Profile and workspace settings',
          querystring: WorkspaceQuery,
          response: { 200: SettingsResponse },
        },
      },
      async (request) => {
        const [user, settings] = await Promise.all([requireUser(db, request.auth.userId), getSettings(db, request.auth.workspaceId)]);
        return settingsView(user, settings);
      },
    );

    app.put(
      '/settings',
      {
        schema: {
          tags,
          operationId: 'updateSettings',
          summary: 'Update settings (partial, deep merge; unknown fields rejected)',
          querystring: WorkspaceQuery,
          body: SettingsPatch,
          response: { 200: SuccessMessage },
        },
      },
      async (request) => {
        const { workspaceId, userId } = request.auth;
        const patch = checkPatch(request.body, workspaceId);
        const emailFrom = patch.workspace?.notifications?.emailFrom;
        if (emailFrom !== undefined) await assertSenderAllowed(db, workspaceId, emailFrom, allowList);
        const { email: newEmail, ...profile } = patch.profile ?? {};
        const user = await requireUser(db, userId);
        // A new address is confirmed by a token mailed to it: its place in the hourly budget is
        // taken before anything is written (a 429 changes nothing), and given back if the update fails.
        let slot: OnDemandSlot | undefined;
        if (newEmail !== undefined && newEmail.trim().toLowerCase() !== user.email) {
          slot = await reserveOnDemand(
            { db, mailer: getMailer(), allowList },
            { workspaceId, kind: 'email_confirmation', to: newEmail.trim().toLowerCase(), ...(emailFrom !== undefined ? { from: emailFrom } : {}) },
          );
        }
        let change: Awaited<ReturnType<typeof requestEmailChange>> | undefined;
        try {
          change = await db.transaction().execute(async (trx) => {
            if (Object.keys(profile).length > 0) await updateUserProfile(trx, userId, profile);
            if (patch.workspace && Object.keys(patch.workspace).length > 0) {
              const next = await updateSettings(trx, workspaceId, patch.workspace);
              const w = next.healthWeights;
              if (w.sentiment + w.engagement + w.responsiveness + w.recency <= 0) {
                throw invalid('body.workspace.healthWeights: at least one weight must be above 0');
              }
            }
            return newEmail === undefined ? undefined : requestEmailChange(trx, userId, newEmail);
          });
        } catch (err) {
          await slot?.release();
          throw err;
        }
        if (change?.status !== 'pending' || !slot) return { success: true, message: 'Settings updated' };
        let sent;
        try {
          sent = await slot.send({
            subject: `Confirm your new address for the Customer Health Service (${workspaceId})`,
            text: confirmationText(user, workspaceId, change.email, change.token, change.expiresAt),
          });
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          throw new ChsError(
            'NOTIFICATION_FAILED',
            `Settings saved, but the confirmation e-mail to ${change.email} could not be sent (${reason}); send profile.email again to retry`,
            { cause: err },
          );
        }
        return {
          success: true,
          message:
            `Settings updated. profile.email stays ${user.email} until ${change.email} is confirmed: a single-use token was sent there ${whereSent(sent)}, ` +
            `valid until ${change.expiresAt}; send it to POST ${CONFIRM_EMAIL_PATH}`,
        };
      },
    );

    app.post(
      '/settings/confirm-email',
      {
        schema: {
          tags,
          operationId: 'confirmEmail',
          summary: 'Engine extension: confirm a new profile.email with the token mailed to it',
          description:
            'PUT /settings with a new profile.email mails a single-use token (valid 24 hours) to the new address; until it comes back here, alerts and digests ' +
            'keep going to the confirmed address. A wrong, used, replaced or expired token is 400 CONFIRMATION_INVALID.',
          querystring: WorkspaceQuery,
          body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'The token from the confirmation e-mail (ec_…)' }) }, strict),
          response: { 200: Type.Object({ success: Type.Boolean(), message: Type.String(), email: Type.String() }) },
        },
      },
      async (request) => {
        const user = await confirmEmailChange(db, request.auth.workspaceId, request.body.token);
        request.log.info({ workspaceId: request.auth.workspaceId, userId: user.id }, 'profile e-mail changed after confirmation');
        return { success: true, message: `profile.email is now ${user.email}: alerts and digests go there`, email: user.email };
      },
    );

    app.get(
      '/settings/user',
      { schema: { tags, operationId: 'getUserInfo', summary: 'The calling user and the workspace', querystring: WorkspaceQuery, response: { 200: UserInfo } } },
      async (request) => {
        const [user, ws] = await Promise.all([requireUser(db, request.auth.userId), requireWorkspace(db, request.auth.workspaceId)]);
        const pending = deps.keyUsage?.pendingUserLastUsed(user.id);
        const lastLoginAt = pending !== undefined && (user.lastLoginAt === null || pending > user.lastLoginAt) ? pending : user.lastLoginAt;
        return {
          user: {
            email: user.email,
            name: user.name,
            title: user.title,
            hasCompletedOnboarding: user.hasCompletedOnboarding,
            createdAt: user.createdAt,
            lastLoginAt,
          },
          workspace: { domain: ws.id, name: ws.name, plan: ws.plan, billingStatus: ws.billingStatus },
        };
      },
    );

    app.post(
      '/settings/complete-onboarding',
      {
        schema: {
          tags,
          operationId: 'completeOnboarding',
          summary: 'Mark the calling user onboarded',
          querystring: WorkspaceQuery,
          response: { 200: Type.Object({ success: Type.Boolean(), hasCompletedOnboarding: Type.Boolean() }) },
        },
      },
      async (request) => {
        const user = await completeOnboarding(db, request.auth.userId);
        return { success: true, hasCompletedOnboarding: user.hasCompletedOnboarding };
      },
    );
  };
