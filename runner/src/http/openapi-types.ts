/**
 * Generated from the OpenAPI document by `npm run openapi:types -w runner` (openapi-typescript).
 * Do not edit: change the route schemas and generate again (a test fails while this file is stale).
 */
export interface paths {
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers (no key, not rate-limited) */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: database reachable and migrated, Redis answering when configured (no key, not rate-limited) */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Profile and workspace settings */
        get: operations["getSettings"];
        /** Update settings (partial, deep merge; unknown fields rejected) */
        put: operations["updateSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/confirm-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Engine extension: confirm a new profile.email with the token mailed to it
         * @description PUT /settings with a new profile.email mails a single-use token (valid 24 hours) to the new address; until it comes back here, alerts and digests keep going to the confirmed address. A wrong, used, replaced or expired token is 400 CONFIRMATION_INVALID.
         */
        post: operations["confirmEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling user and the workspace */
        get: operations["getUserInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/complete-onboarding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark the calling user onboarded */
        post: operations["completeOnboarding"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace’s API keys (masked) */
        get: operations["listApiKeys"];
        put?: never;
        /** Create an API key; the full key is in this response only */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/api-keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an API key for good; requests with it get 401 at once */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/api-keys/revoke-all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Engine extension: revoke every active key of the workspace at once, the calling key included
         * @description Every active key becomes inactive and is refused (401) on its next request, by every runner. The calling key is revoked too: the call is meant for a leaked key, and if the caller’s key survived, a holder of the leaked key could call this to lock everyone else out and keep the only working key. Make a new key afterwards with `chs keys create` on the server. Revoked keys stay listed (inactive).
         */
        post: operations["revokeAllApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test e-mail to the calling user
         * @description At most 5 e-mails an hour per workspace are sent on request (test e-mails and address confirmations together); beyond, 429 NOTIFICATION_RATE_LIMITED with Retry-After. The sender (workspace.notifications.emailFrom) must be on the workspace’s domains or the operator allow-list (400 SENDER_NOT_ALLOWED).
         */
        post: operations["sendTestNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every client, excluded ones too (a bare array) */
        get: operations["listClients"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients/last-interactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Client id → last interaction timestamp (null when none) */
        get: operations["getLastInteractions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients/{clientId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A client with its metrics (avgResponseTime in hours) and contacts */
        get: operations["getClient"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Extension: set mrr, renewalDate, csmOwner, isExcluded, name, extra domains
         * @description Not in the spec (extension). Fields absent are unchanged; null clears mrr, renewalDate and csmOwner.
         */
        patch: operations["updateClient"];
        trace?: never;
    };
    "/api/clients/{clientId}/interactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Interactions of a client, newest first */
        get: operations["listClientInteractions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients/{clientId}/health-history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Extension: the score history with the reason of each move, the components and the evidence
         * @description Not in the spec (extension). One point per day from the daily snapshots; what the dashboard charts.
         */
        get: operations["getClientHealthHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients/{clientId}/outcomes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Extension: how the renewals of a client ended, oldest first
         * @description Extension (not in the spec). Every outcome recorded for the client (by CSV, the API or a CRM), oldest first.
         */
        get: operations["listClientOutcomes"];
        put?: never;
        /**
         * Extension: record how the renewal of a client ended (renewed, churned, downgraded)
         * @description Extension (not in the spec). One outcome per client and day: 201 when the client had none that day, 200 when it replaced the outcome of that day. A date after today, or a downgrade without both mrrBefore and mrrAfter (mrrAfter below mrrBefore), is 400 INVALID_INPUT; a client not in the workspace is 404 CLIENT_NOT_FOUND.
         */
        post: operations["recordClientOutcome"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients/suggested": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Extension: domains our mail names that are not scored clients, with why
         * @description Not in the spec (extension). Suggested clients are unscored and absent from GET /clients and every metric until accepted; those whose people wrote the most first, then the most mail.
         */
        get: operations["listSuggestedClients"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients/suggested/{domain}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extension: make a suggested (or ignored) domain a scored client
         * @description Not in the spec (extension). The client is scored over its whole stored mail before the answer. 404 NOT_FOUND when the domain is no suggestion.
         */
        post: operations["acceptSuggestedClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/clients/suggested/{domain}/ignore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extension: set a suggested domain aside
         * @description Not in the spec (extension). It leaves the suggestions (GET /clients/suggested?status=ignored lists it); its mail stays stored and later mail never makes it a client. 404 NOT_FOUND when the domain is no suggestion.
         */
        post: operations["ignoreSuggestedClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/backtest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Extension: how well the score foresaw the recorded renewal outcomes (AUC, precision, recall, lead time, calibration)
         * @description Not in the spec (extension). For each outcome recorded (chs outcomes import, POST /clients/{clientId}/outcomes), the score the client had `days` before it, read from the stored daily history only; 30, 60 and 90 days too under `horizons`.
         */
        get: operations["getMetricsBacktest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Portfolio summary (excluded clients left out) */
        get: operations["getMetricsSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/trends/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Average health score per day, ISO week or month */
        get: operations["getHealthTrend"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/trends/sentiment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sentiment per day; avgSentiment in [0, 1], 0.5 neutral */
        get: operations["getSentimentTrend"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/trends/interactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Interaction mix by type; percentages sum to 100 */
        get: operations["getInteractionMix"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/deltas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Score changes over the window grouped by reason */
        get: operations["getScoreDeltas"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/email-stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** E-mail engagement: open rate (where tracked) and response rate from threads */
        get: operations["getEmailEngagement"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Extension: the health weights learned from renewal outcomes, newest first, and the one in use
         * @description Not in the spec (extension). `active` is the version in use, null while the hand-written weights (the settings’ healthWeights) score.
         */
        get: operations["listHealthModels"];
        put?: never;
        /**
         * Extension: learn health weights from the renewal outcomes; offered only when they beat the hand-written ones
         * @description Not in the spec (extension). A ridge logistic regression of churn on what the score knew `days` before each recorded renewal, tested on later renewals than it learned from. Stored either way: `offered` when its held-out AUC beats the hand-written weights’ by 0.01 or more, else `rejected`. Never applied by itself. Fewer than 30 renewals with a score then, or fewer than 8 churns among them, is 409 CONFLICT.
         */
        post: operations["learnHealthModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health/models/{version}/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extension: score with a learned model from today on
         * @description Not in the spec (extension). An offered (or retired) model scores from today: every client’s score from today is rebuilt with it before the answer; earlier days keep the model that scored them. The model in use until now is kept for a revert. Applying the active model changes nothing. A rejected model is 409 INVALID_TRANSITION; an unknown version 404 NOT_FOUND.
         */
        post: operations["applyHealthModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health/models/revert": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extension: go back one step to the model in use before the last apply (or the hand-written weights)
         * @description Not in the spec (extension). The model in use is retired; the one it replaced (null: the hand-written weights) scores again from today, and every client’s score from today is rebuilt before the answer. 409 INVALID_TRANSITION while the hand-written weights are in use.
         */
        post: operations["revertHealthModel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest/email-stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** E-mail ingestion statistics and processing errors */
        get: operations["getIngestEmailStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/{provider}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Connection status of a provider for the workspace */
        get: operations["getIntegrationStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/hubspot/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Extension: the HubSpot integration’s settings (its renewal pipeline)
         * @description Extension (not in the spec). 400 INTEGRATION_NOT_CONNECTED when HubSpot is not connected.
         */
        get: operations["getHubSpotSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Extension: map (or unmap) the HubSpot renewal pipeline
         * @description Extension (not in the spec). With a renewal pipeline mapped, each HubSpot sync reads that pipeline’s deals: a deal closed won records `renewed`, closed lost `churned`, on the client of its primary company, dated by its close date (source `hubspot`); open deals are ignored. A newly mapped pipeline is read from the start on the next sync; unmapping keeps the outcomes already recorded. 400 INTEGRATION_NOT_CONNECTED when HubSpot is not connected (the settings live with the connection).
         */
        patch: operations["updateHubSpotSettings"];
        trace?: never;
    };
    "/api/ingest/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a sync of the given (default: every connected) integration; one job per source, one run id */
        post: operations["startIngestRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The current (or the given) run with its per-source progress, and recent runs */
        get: operations["getIngestStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One record per job, newest first */
        get: operations["listIngestHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest/backfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a windowed read of a provider between fromDate and toDate (runs in the background) */
        post: operations["startIngestBackfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest/jobs/{jobId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Extension: cancel a queued, parked or running job (or every job of a run) */
        post: operations["cancelIngestJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/{provider}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue an incremental (quick) sync of one provider */
        post: operations["syncIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/{provider}/backfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue a read of the last sinceDays days of one provider */
        post: operations["backfillIntegration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/google/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Engine extension: start a Google sign-in for the workspace; answers the consent URL
         * @description Send the user’s browser to `url`. After consent Google sends it to GET /api/integrations/google/callback, which stores the tokens (encrypted) and redirects to CHS_PUBLIC_URL. The state in the URL is single-use, bound to this workspace and valid 10 minutes. Each sign-in adds the signed-in mailbox to the workspace (or replaces that mailbox’s tokens). 409 OAUTH_NOT_CONFIGURED when CHS_PUBLIC_URL or the OAuth client is not set.
         */
        post: operations["authorizeGoogle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/google/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Engine extension: Google’s redirect after consent (no key; opened by the browser)
         * @description Consumes the single-use state, exchanges the code (PKCE), reads the mailbox address, stores the tokens encrypted, then answers 302 to `CHS_PUBLIC_URL/?integration=google&account=<address>`. A refused Google sign-in answers an HTML page naming the reason and its code: OAUTH_FAILED (400) for denied consent, an unknown (another provider’s included), expired or already used state, or a code Google refused (used twice, expired). A caller that does not ask for text/html (no browser) gets the same as the documented error body.
         */
        get: operations["googleCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/hubspot/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Engine extension: start the install of the HubSpot public app for the workspace; answers the install URL
         * @description Send the user’s browser to `url` (HubSpot’s install screen, asking for the read scopes the connector uses). After the install HubSpot sends it to GET /api/integrations/hubspot/callback, which exchanges the code and stores the app’s tokens (encrypted; the 30-minute access token is refreshed by the syncs) and redirects to CHS_PUBLIC_URL. The state in the URL is single-use, bound to this workspace and to HubSpot, and valid 10 minutes. An install replaces the workspace’s HubSpot credentials (a private-app token included). 409 OAUTH_NOT_CONFIGURED when CHS_PUBLIC_URL, CHS_HUBSPOT_CLIENT_ID or CHS_HUBSPOT_CLIENT_SECRET is not set.
         */
        post: operations["authorizeHubSpot"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/hubspot/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Engine extension: HubSpot’s redirect after consent (no key; opened by the browser)
         * @description Consumes the single-use state, exchanges the code at HubSpot’s token endpoint (CHS_HUBSPOT_API_URL), stores the access and refresh tokens with the app’s client id and secret and the expiry, encrypted, then answers 302 to `CHS_PUBLIC_URL/?integration=hubspot`. A refused HubSpot install answers an HTML page naming the reason and its code: OAUTH_FAILED (400) for denied consent, an unknown (another provider’s included), expired or already used state, or a code HubSpot refused (used twice, expired). A caller that does not ask for text/html (no browser) gets the same as the documented error body.
         */
        get: operations["hubspotCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Engine extension: disconnect a provider (revoke at Google, then forget the credentials)
         * @description Google: the refresh token is revoked at Google’s revoke endpoint (CHS_GOOGLE_REVOKE_URL). The credentials are forgotten whatever the revoke did; `revoked: false` with `revokeError` says it failed (remove the access in the Google account instead). HubSpot and Intercom tokens are only forgotten. With `account`, only that Google mailbox is disconnected; without, every account of the provider.
         */
        delete: operations["disconnectIntegration"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest/v2/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a large Gmail ingestion in batches (a second start while one runs returns the running session) */
        post: operations["startLargeIngestion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest/v2/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The latest large ingestion of the workspace */
        get: operations["getLargeIngestionStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/webhooks/event-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The event types an endpoint may choose, each with its JSON Schema (docs/events.md) */
        get: operations["listWebhookEventTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace’s webhook endpoints (without their secrets) */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook endpoint; its signing secret is in this answer only
         * @description At most 20 endpoints per workspace (409 CONFLICT beyond). A URL that is not https, or whose host is (or resolves to) a loopback, private, link-local or metadata address, is 400 INVALID_INPUT unless the operator allows it (CHS_WEBHOOKS_ALLOW_HTTP, CHS_WEBHOOKS_ALLOW_PRIVATE); an unknown event type is 400 INVALID_INPUT naming the known ones.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One webhook endpoint (without its secret) */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /** Delete an endpoint and its deliveries for good */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /** Change an endpoint’s URL, event types or description, or disable and enable it */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/api/settings/webhooks/{webhookId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a `webhook.test` event for this endpoint only
         * @description The event is delivered like any other (signed, retried): watch it in GET …/deliveries. A disabled endpoint gets it too: it is how one checks a receiver before enabling it again.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A new signing secret, in this answer only; the previous one still signs (beside it) until previousSecretValidUntil */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An endpoint’s deliveries, newest first, with their attempts */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a delivery again, now, with the same event id (`webhook-id`) */
        post: operations["redeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok";
                        /** @description The runner version */
                        version: string;
                        /** @description Seconds since this process started */
                        uptimeSeconds: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ready";
                        checks: {
                            database: "ok" | "failed" | "not_configured";
                            redis: "ok" | "failed" | "not_configured";
                        };
                    };
                };
            };
            /** @description Default Response */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                        checks: {
                            database: "ok" | "failed" | "not_configured";
                            redis: "ok" | "failed" | "not_configured";
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getSettings: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        profile: {
                            name: string;
                            /** Format: email */
                            email: string;
                            title: string;
                            /** @description Engine extension: a new address waiting for confirmation (POST /settings/confirm-email); `email` stays in use until then. Absent when none. */
                            pendingEmail?: string;
                        };
                        workspace: {
                            workspaceName: string;
                            /** @description The workspace id; read-only (a PUT may repeat it, not change it) */
                            domain: string;
                            /** @description IANA time zone, e.g. Europe/Paris */
                            timezone: string;
                            /** @description ISO 4217 code, e.g. EUR */
                            currency: string;
                            defaultWindowDays: number;
                            riskThreshold: number;
                            dataRetentionDays: number;
                            notifications: {
                                channels: {
                                    email: boolean;
                                };
                                dailyDigest: boolean;
                                weeklyDigest: boolean;
                                alertOnScoreDrop: boolean;
                                /** @description Engine extension: alert at once when a client states an intent to leave (churn_intent) or escalates (escalation) */
                                alertOnRiskSignals: boolean;
                                /** @description Percent, 0-100 */
                                scoreDropPct: number;
                                alertOnRenewals: boolean;
                                /** @description Days, 1-365 */
                                renewalsAheadDays: number;
                                /** Format: email */
                                emailFrom: string;
                            };
                            /** @description Engine extension: relative weights of the health components (normalised; not all zero) */
                            healthWeights: {
                                sentiment: number;
                                engagement: number;
                                responsiveness: number;
                                recency: number;
                            };
                            /** @description Engine extension: minutes between scheduled quick syncs */
                            syncIntervalMinutes: number;
                            /** @description Engine extension: business days (Mon–Fri in the workspace's time zone) within which a client's e-mail asking for an answer should get one; past it, it counts as unanswered in the health score */
                            replySlaBusinessDays: number;
                            /** @description Engine extension: who becomes a scored client from mail. crm_only: only clients from the CRM or an import; conversations (default): we wrote to them, or a person there wrote to us directly; every_sender: any external sender. Every other domain our mail names is a suggested client (GET /clients/suggested). */
                            clientDiscovery: "crm_only" | "conversations" | "every_sender";
                            /** @description Engine extension: what the events (webhooks, engine.events) announce (docs/events.md) */
                            events: {
                                /** @description client.score_changed fires when a client’s score moved at least this much (points, 0-100) since the score it last announced; default 10 */
                                scoreChangeMinDelta: number;
                            };
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    updateSettings: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    profile?: {
                        name?: string;
                        /** Format: email */
                        email?: string;
                        title?: string;
                    };
                    workspace?: {
                        workspaceName?: string;
                        /** @description The workspace id; read-only (a PUT may repeat it, not change it) */
                        domain?: string;
                        /** @description IANA time zone, e.g. Europe/Paris */
                        timezone?: string;
                        /** @description ISO 4217 code, e.g. EUR */
                        currency?: string;
                        defaultWindowDays?: number;
                        riskThreshold?: number;
                        dataRetentionDays?: number;
                        notifications?: {
                            channels?: {
                                email?: boolean;
                            };
                            dailyDigest?: boolean;
                            weeklyDigest?: boolean;
                            alertOnScoreDrop?: boolean;
                            /** @description Engine extension: alert at once when a client states an intent to leave (churn_intent) or escalates (escalation) */
                            alertOnRiskSignals?: boolean;
                            /** @description Percent, 0-100 */
                            scoreDropPct?: number;
                            alertOnRenewals?: boolean;
                            /** @description Days, 1-365 */
                            renewalsAheadDays?: number;
                            /** Format: email */
                            emailFrom?: string;
                        };
                        /** @description Engine extension: relative weights of the health components (normalised; not all zero) */
                        healthWeights?: {
                            sentiment?: number;
                            engagement?: number;
                            responsiveness?: number;
                            recency?: number;
                        };
                        /** @description Engine extension: minutes between scheduled quick syncs */
                        syncIntervalMinutes?: number;
                        /** @description Engine extension: business days (Mon–Fri in the workspace's time zone) within which a client's e-mail asking for an answer should get one; past it, it counts as unanswered in the health score */
                        replySlaBusinessDays?: number;
                        /** @description Engine extension: who becomes a scored client from mail. crm_only: only clients from the CRM or an import; conversations (default): we wrote to them, or a person there wrote to us directly; every_sender: any external sender. Every other domain our mail names is a suggested client (GET /clients/suggested). */
                        clientDiscovery?: "crm_only" | "conversations" | "every_sender";
                        /** @description Engine extension: what the events (webhooks, engine.events) announce (docs/events.md) */
                        events?: {
                            /** @description client.score_changed fires when a client’s score moved at least this much (points, 0-100) since the score it last announced; default 10 */
                            scoreChangeMinDelta?: number;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    confirmEmail: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The token from the confirmation e-mail (ec_…) */
                    token: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                        email: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getUserInfo: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: {
                            email: string;
                            name: string;
                            title: string;
                            hasCompletedOnboarding: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description Last use of any of the user’s keys; null when never */
                            lastLoginAt: string | null;
                        };
                        workspace: {
                            domain: string;
                            name: string;
                            plan: string;
                            billingStatus: string;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    completeOnboarding: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        hasCompletedOnboarding: boolean;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        apiKeys: {
                            id: string;
                            name: string;
                            /** @description Masked preview: sk-, the first 4 characters, …, the last 4 */
                            key: string;
                            lastUsedAt: string | null;
                            isActive: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description Engine extension: the id of the key whose request created this one, or `cli` (chs init, chs keys create); null for keys older than this record */
                            createdBy: string | null;
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @description The workspace domain, e.g. acme.com */
                    workspaceId?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                        apiKey: {
                            id: string;
                            name: string;
                            /** @description The full key; shown only in this response */
                            key: string;
                            isActive: boolean;
                            /** Format: date-time */
                            createdAt: string;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    deleteApiKey: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    revokeAllApiKeys: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                        /** @description Ids of the keys revoked */
                        revoked: string[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    sendTestNotification: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Only `email` is supported */
                channel: "email";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listClients: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every client, excluded ones too, by name */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": "cli_01HZX4V9K2M8Q7",
                     *         "name": "Globex",
                     *         "domain": "globex.com",
                     *         "sentimentScore": 38.5,
                     *         "lastInteraction": "2026-11-20T14:03:00.000Z",
                     *         "mrr": 4200,
                     *         "renewalDate": "2026-12-15",
                     *         "csmOwner": "ana@acme.com",
                     *         "isExcluded": false,
                     *         "createdAt": "2026-01-10T09:00:00.000Z",
                     *         "updatedAt": "2026-11-20T14:05:12.000Z"
                     *       }
                     *     ]
                     */
                    "application/json": {
                        id: string;
                        name: string;
                        domain: string;
                        /** @description The health score, 0-100 (50 until first computed) */
                        sentimentScore: number;
                        lastInteraction: string | null;
                        mrr: number | null;
                        renewalDate: string | null;
                        csmOwner: string | null;
                        /** @description Excluded clients are left out of every metric */
                        isExcluded: boolean;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    }[];
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getLastInteractions: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Client id → its last interaction (null when none) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "cli_01HZX4V9K2M8Q7": "2026-11-20T14:03:00.000Z",
                     *       "cli_01HZX4VA0B3N6R": null
                     *     }
                     */
                    "application/json": {
                        [key: string]: string | null;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getClient: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                clientId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "client": {
                     *         "id": "cli_01HZX4V9K2M8Q7",
                     *         "name": "Globex",
                     *         "domain": "globex.com",
                     *         "sentimentScore": 38.5,
                     *         "lastInteraction": "2026-11-20T14:03:00.000Z",
                     *         "mrr": 4200,
                     *         "renewalDate": "2026-12-15",
                     *         "csmOwner": "ana@acme.com",
                     *         "isExcluded": false,
                     *         "createdAt": "2026-01-10T09:00:00.000Z",
                     *         "updatedAt": "2026-11-20T14:05:12.000Z"
                     *       },
                     *       "metrics": {
                     *         "totalInteractions": 182,
                     *         "avgResponseTime": 26.4,
                     *         "lastMonthInteractions": 14,
                     *         "sentimentTrend": "declining"
                     *       },
                     *       "contacts": [
                     *         {
                     *           "email": "hank@globex.com",
                     *           "name": "Hank Scorpio",
                     *           "title": "CEO",
                     *           "lastSeen": "2026-11-20T14:03:00.000Z"
                     *         }
                     *       ],
                     *       "health": {
                     *         "score": 38.5,
                     *         "date": "2026-11-25",
                     *         "confidence": 0.9,
                     *         "reason": "Stated an intent to leave on 2026-11-20.",
                     *         "reasonCode": "churn_intent",
                     *         "risks": [
                     *           {
                     *             "code": "churn_intent",
                     *             "text": "Stated an intent to leave on 2026-11-20.",
                     *             "interactionIds": [
                     *               "int_01HZX5B7"
                     *             ]
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        client: {
                            id: string;
                            name: string;
                            domain: string;
                            /** @description The health score, 0-100 (50 until first computed) */
                            sentimentScore: number;
                            lastInteraction: string | null;
                            mrr: number | null;
                            renewalDate: string | null;
                            csmOwner: string | null;
                            /** @description Excluded clients are left out of every metric */
                            isExcluded: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                        metrics: {
                            totalInteractions: number;
                            avgResponseTime: number | null;
                            lastMonthInteractions: number;
                            sentimentTrend: "improving" | "stable" | "declining";
                        };
                        contacts: {
                            email: string;
                            name: string;
                            title: string;
                            lastSeen: string | null;
                        }[];
                        /** @description Extension: why the score is where it is, from the latest snapshot */
                        health: {
                            score: number;
                            date: string | null;
                            confidence: number | null;
                            reason: string;
                            reasonCode: string;
                            /** @description Every risk signal that holds, most severe first, with the interactions that show it */
                            risks: {
                                code: string;
                                text: string;
                                interactionIds: string[];
                            }[];
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    updateClient: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                clientId: string;
            };
            cookie?: never;
        };
        /** @description Extension (not in the spec): client attributes mail cannot give */
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    mrr?: number | null;
                    renewalDate?: string | null;
                    csmOwner?: string | null;
                    isExcluded?: boolean;
                    /** @description Extra domains to attach */
                    domains?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        name: string;
                        domain: string;
                        /** @description The health score, 0-100 (50 until first computed) */
                        sentimentScore: number;
                        lastInteraction: string | null;
                        mrr: number | null;
                        renewalDate: string | null;
                        csmOwner: string | null;
                        /** @description Excluded clients are left out of every metric */
                        isExcluded: boolean;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listClientInteractions: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Page size, 1-200 (default 50) */
                limit?: number;
                /** @description Items to skip (default 0) */
                offset?: number;
            };
            header?: never;
            path: {
                clientId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        interactions: {
                            id: string;
                            /** @description email, meeting, call, note, support_ticket, … */
                            type: string;
                            subject: string;
                            /** @description positive, neutral or negative */
                            sentiment: string;
                            /** Format: date-time */
                            date: string;
                            from: string;
                            to: string;
                            summary: string;
                            /** @description Extension: the score behind `sentiment` */
                            sentimentScore: number;
                            /** @description Extension: inbound or outbound */
                            direction: string;
                            /** @description Extension: where it came from */
                            source: string;
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                            hasMore: boolean;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getClientHealthHistory: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days of history up to today, 1-365 (default 90) */
                windowDays?: number;
            };
            header?: never;
            path: {
                clientId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: the score history with the reason of each move */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "clientId": "cli_01HZX4V9K2M8Q7",
                     *       "windowDays": 90,
                     *       "days": [
                     *         {
                     *           "date": "2026-11-20",
                     *           "score": 38.5,
                     *           "confidence": 0.9,
                     *           "change": -12.5,
                     *           "reasonCode": "churn_intent",
                     *           "reason": "Stated an intent to leave on 2026-11-20.",
                     *           "sentiment": 31,
                     *           "interactionIds": [
                     *             "int_01HZX5B7"
                     *           ]
                     *         }
                     *       ],
                     *       "components": [
                     *         {
                     *           "name": "sentiment",
                     *           "value": 31,
                     *           "weight": 0.4,
                     *           "contribution": 12.4
                     *         }
                     *       ],
                     *       "evidence": []
                     *     }
                     */
                    "application/json": {
                        clientId: string;
                        windowDays: number;
                        /** @description One point per day of the window that has a snapshot, oldest first */
                        days: {
                            /** Format: date */
                            date: string;
                            score: number;
                            confidence: number;
                            change: number | null;
                            reasonCode: string | null;
                            reason: string | null;
                            sentiment: number | null;
                            /** @description The interactions that show the day's reason */
                            interactionIds: string[];
                            /** @description Engine extension: the learned health model that scored the day (GET /health/models); absent when the hand-written weights did */
                            model?: number;
                        }[];
                        /** @description The components of the latest snapshot (empty before the first) */
                        components: {
                            name: "sentiment" | "engagement" | "responsiveness" | "recency";
                            value: number | null;
                            weight: number | null;
                            contribution: number | null;
                        }[];
                        /** @description The interactions behind the current risks and the moves of at least 2 points, newest first (at most 30) */
                        evidence: {
                            id: string;
                            /** @description email, meeting, call, note, support_ticket, … */
                            type: string;
                            subject: string;
                            /** @description positive, neutral or negative */
                            sentiment: string;
                            /** Format: date-time */
                            date: string;
                            from: string;
                            to: string;
                            summary: string;
                            /** @description Extension: the score behind `sentiment` */
                            sentimentScore: number;
                            /** @description Extension: inbound or outbound */
                            direction: string;
                            /** @description Extension: where it came from */
                            source: string;
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listClientOutcomes: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                clientId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension (not in the spec): the renewal outcomes of a client */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "outcomes": [
                     *         {
                     *           "id": "out_01HZX6C2D4E8F0",
                     *           "clientId": "cli_01HZX4V9K2M8Q7",
                     *           "date": "2026-11-15",
                     *           "outcome": "downgraded",
                     *           "mrrBefore": 4200,
                     *           "mrrAfter": 2500,
                     *           "source": "api",
                     *           "createdAt": "2026-11-16T09:12:00.000Z",
                     *           "updatedAt": "2026-11-16T09:12:00.000Z"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        /** @description The outcomes of the client, oldest first */
                        outcomes: {
                            /** @description The outcome id (`out_…`) */
                            id: string;
                            clientId: string;
                            /**
                             * Format: date
                             * @description The day the renewal was decided; one outcome per client and day
                             */
                            date: string;
                            /** @description How the renewal ended: `renewed`, `churned` or `downgraded` (with the MRR before and after) */
                            outcome: "renewed" | "churned" | "downgraded";
                            mrrBefore: number | null;
                            mrrAfter: number | null;
                            /** @description Where it was recorded: `csv` (chs outcomes import), `api` (this API) or `hubspot` */
                            source: "csv" | "api" | "hubspot";
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    recordClientOutcome: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                clientId: string;
            };
            cookie?: never;
        };
        /** @description Extension (not in the spec): how the renewal of a client ended */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date
                     * @description The day the renewal was decided, YYYY-MM-DD; not after today (UTC)
                     */
                    date: string;
                    /** @description How the renewal ended: `renewed`, `churned` or `downgraded` (with the MRR before and after) */
                    outcome: "renewed" | "churned" | "downgraded";
                    /** @description MRR before the renewal: required for `downgraded` */
                    mrrBefore?: number | null;
                    /** @description MRR after the renewal: required for `downgraded`, and below mrrBefore there */
                    mrrAfter?: number | null;
                };
            };
        };
        responses: {
            /** @description Extension (not in the spec): how the renewal of a client ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "out_01HZX6C2D4E8F0",
                     *       "clientId": "cli_01HZX4V9K2M8Q7",
                     *       "date": "2026-11-15",
                     *       "outcome": "downgraded",
                     *       "mrrBefore": 4200,
                     *       "mrrAfter": 2500,
                     *       "source": "api",
                     *       "createdAt": "2026-11-16T09:12:00.000Z",
                     *       "updatedAt": "2026-11-16T09:12:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The outcome id (`out_…`) */
                        id: string;
                        clientId: string;
                        /**
                         * Format: date
                         * @description The day the renewal was decided; one outcome per client and day
                         */
                        date: string;
                        /** @description How the renewal ended: `renewed`, `churned` or `downgraded` (with the MRR before and after) */
                        outcome: "renewed" | "churned" | "downgraded";
                        mrrBefore: number | null;
                        mrrAfter: number | null;
                        /** @description Where it was recorded: `csv` (chs outcomes import), `api` (this API) or `hubspot` */
                        source: "csv" | "api" | "hubspot";
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Extension (not in the spec): how the renewal of a client ended */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "out_01HZX6C2D4E8F0",
                     *       "clientId": "cli_01HZX4V9K2M8Q7",
                     *       "date": "2026-11-15",
                     *       "outcome": "downgraded",
                     *       "mrrBefore": 4200,
                     *       "mrrAfter": 2500,
                     *       "source": "api",
                     *       "createdAt": "2026-11-16T09:12:00.000Z",
                     *       "updatedAt": "2026-11-16T09:12:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @description The outcome id (`out_…`) */
                        id: string;
                        clientId: string;
                        /**
                         * Format: date
                         * @description The day the renewal was decided; one outcome per client and day
                         */
                        date: string;
                        /** @description How the renewal ended: `renewed`, `churned` or `downgraded` (with the MRR before and after) */
                        outcome: "renewed" | "churned" | "downgraded";
                        mrrBefore: number | null;
                        mrrAfter: number | null;
                        /** @description Where it was recorded: `csv` (chs outcomes import), `api` (this API) or `hubspot` */
                        source: "csv" | "api" | "hubspot";
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listSuggestedClients: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description suggested (default): waiting for a decision; ignored: set aside */
                status?: "suggested" | "ignored";
                /** @description Page size, 1-200 (default 50) */
                limit?: number;
                /** @description Items to skip (default 0) */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: domains our mail names that are not scored clients */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "suggestions": [
                     *         {
                     *           "clientId": "cli_01HZX6C2QW8E",
                     *           "domain": "initech.com",
                     *           "name": "Initech",
                     *           "status": "suggested",
                     *           "reason": "co_recipient",
                     *           "reasonText": "only named as a co-recipient of someone else's mail",
                     *           "messages": 6,
                     *           "messagesFrom": 0,
                     *           "people": 0,
                     *           "firstAt": "2026-09-02T08:15:00.000Z",
                     *           "lastAt": "2026-11-18T16:40:00.000Z"
                     *         }
                     *       ],
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        /** @description Most messages first, then by domain */
                        suggestions: {
                            /** @description The client id it keeps when accepted */
                            clientId: string;
                            domain: string;
                            name: string;
                            status: "suggested" | "ignored";
                            /** @description Why it is not a client: personal (conversations about no work), pitch (only sales pitches), cc_only, mass_mail, role_sender, co_recipient or policy (the workspace takes clients from the CRM only) */
                            reason: string;
                            /** @description The reason in plain words */
                            reasonText: string;
                            messages: number;
                            /** @description Of the messages, those sent by someone there */
                            messagesFrom: number;
                            /** @description Distinct addresses there that wrote */
                            people: number;
                            firstAt: string | null;
                            lastAt: string | null;
                        }[];
                        /** @description Suggestions with this status in all */
                        total: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    acceptSuggestedClient: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The suggested domain (or its client id) */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: the accepted client, scored over its whole stored history */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        client: {
                            id: string;
                            name: string;
                            domain: string;
                            /** @description The health score, 0-100 (50 until first computed) */
                            sentimentScore: number;
                            lastInteraction: string | null;
                            mrr: number | null;
                            renewalDate: string | null;
                            csmOwner: string | null;
                            /** @description Excluded clients are left out of every metric */
                            isExcluded: boolean;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    ignoreSuggestedClient: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The suggested domain (or its client id) */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension: the ignored suggestion; its mail stays stored and later mail never makes it a client */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        suggestion: {
                            clientId: string;
                            domain: string;
                            /** @enum {string} */
                            status: "ignored";
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getMetricsBacktest: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days before each outcome its score is read, 1-365 (default 60) */
                days?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension (not in the spec): how well the stored score history foresaw the recorded renewal outcomes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Days before each outcome its score was read */
                        days: number;
                        /** @description Outcomes with a stored score that many days before them */
                        outcomes: number;
                        churned: number;
                        downgraded: number;
                        renewed: number;
                        /** @description Outcomes without a score then (left out) */
                        withoutHistory: number;
                        /** @description ROC AUC: the chance a churning client scored lower than a kept one; null without both */
                        auc: number | null;
                        /** @description Outcomes whose client was at risk then */
                        flagged: number;
                        /** @description Of the flagged, the share that churned */
                        precision: number | null;
                        /** @description Of the churns, the share flagged */
                        recall: number | null;
                        /** @description Churn rate of the riskiest tenth over that of all */
                        liftTopDecile: number | null;
                        /** @description Brier score of the churn probability calibrated on the score (out of fold): 0 perfect, 0.25 a coin */
                        brier: number | null;
                        /** @description Probability bins: the mean probability given and the share that churned */
                        reliability: {
                            from: number;
                            to: number;
                            outcomes: number;
                            predicted: number | null;
                            observed: number | null;
                        }[];
                        /** @description The ROC curve, from (0,0) to (1,1) */
                        roc: {
                            fpr: number;
                            tpr: number;
                        }[];
                        threshold: number;
                        /** @description Median of the days each churned client had been at risk without a break before it churned */
                        leadTimeDaysMedian: number | null;
                        churnsRedAtLeast45Days: number;
                        churns: {
                            clientId: string;
                            /** Format: date */
                            date: string;
                            scoreBefore: number | null;
                            /** @description The risk signals that held `days` before (churn_intent, escalation, unanswered, gone_quiet, slow_replies, negative_tone), most severe first */
                            signalsBefore: string[];
                            leadTimeDays: number;
                        }[];
                        /** @description The same figures 30, 60 and 90 days before (and at `days`) */
                        horizons: {
                            /** @description Days before each outcome its score was read */
                            days: number;
                            /** @description Outcomes with a stored score that many days before them */
                            outcomes: number;
                            churned: number;
                            downgraded: number;
                            renewed: number;
                            /** @description Outcomes without a score then (left out) */
                            withoutHistory: number;
                            /** @description ROC AUC: the chance a churning client scored lower than a kept one; null without both */
                            auc: number | null;
                            /** @description Outcomes whose client was at risk then */
                            flagged: number;
                            /** @description Of the flagged, the share that churned */
                            precision: number | null;
                            /** @description Of the churns, the share flagged */
                            recall: number | null;
                            /** @description Churn rate of the riskiest tenth over that of all */
                            liftTopDecile: number | null;
                            /** @description Brier score of the churn probability calibrated on the score (out of fold): 0 perfect, 0.25 a coin */
                            brier: number | null;
                            /** @description Probability bins: the mean probability given and the share that churned */
                            reliability: {
                                from: number;
                                to: number;
                                outcomes: number;
                                predicted: number | null;
                                observed: number | null;
                            }[];
                            /** @description The ROC curve, from (0,0) to (1,1) */
                            roc: {
                                fpr: number;
                                tpr: number;
                            }[];
                        }[];
                        /** @description What it says, in words */
                        summary: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getMetricsSummary: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days, 1-90 (default 7) */
                windowDays?: number;
                /** @description Score below which a client is at risk, 0-100 (default: the workspace setting, else 40) */
                riskThreshold?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "totals": {
                     *         "clients": 42,
                     *         "contacts": 310,
                     *         "interactionsWindow": 655,
                     *         "renewals30d": 3,
                     *         "openTasks": 0
                     *       },
                     *       "revenue": {
                     *         "mrrTotal": 126000,
                     *         "mrrAtRisk": 18400,
                     *         "renewals30dValue": 9600,
                     *         "avgClientValue": 3000
                     *       },
                     *       "health": {
                     *         "avgScore": 67.2,
                     *         "change7": -1.4,
                     *         "change7Pct": -2.04,
                     *         "threshold": 40,
                     *         "atRiskCount": 5,
                     *         "improvingCount": 7,
                     *         "churnCalibration": {
                     *           "available": true,
                     *           "model": null,
                     *           "horizonDays": 60,
                     *           "outcomes": 180,
                     *           "text": "Churn probability: the chance a client with this score churns at a renewal 60 days later, fitted on 180 renewals (2025-01-14 to 2026-11-02) scored by the hand-written weights."
                     *         }
                     *       },
                     *       "lists": {
                     *         "topRisks": [
                     *           {
                     *             "clientId": "cli_01HZX4V9K2M8Q7",
                     *             "name": "Globex",
                     *             "score": 38.5,
                     *             "mrr": 4200,
                     *             "reason": "Stated an intent to leave on 2026-11-20.",
                     *             "reasonCode": "churn_intent",
                     *             "churnProbability": 0.41
                     *           }
                     *         ],
                     *         "topImproving": [
                     *           {
                     *             "clientId": "cli_01HZX4VA0B3N6R",
                     *             "name": "Initech",
                     *             "score": 81,
                     *             "scoreChange": 9.5,
                     *             "mrr": 2500
                     *           }
                     *         ],
                     *         "renewals": [
                     *           {
                     *             "clientId": "cli_01HZX4V9K2M8Q7",
                     *             "name": "Globex",
                     *             "renewalDate": "2026-12-15",
                     *             "mrr": 4200,
                     *             "daysUntil": 20
                     *           }
                     *         ]
                     *       },
                     *       "windowDays": 7,
                     *       "asOf": "2026-11-25T12:00:00.000Z"
                     *     }
                     */
                    "application/json": {
                        totals: {
                            clients: number;
                            contacts: number;
                            interactionsWindow: number;
                            renewals30d: number;
                            openTasks: number;
                        };
                        revenue: {
                            mrrTotal: number;
                            mrrAtRisk: number;
                            renewals30dValue: number;
                            avgClientValue: number;
                        };
                        health: {
                            avgScore: number;
                            /** @description Change of the average score over the window, in points */
                            change7: number;
                            /** @description The same change in percent of the earlier average */
                            change7Pct: number;
                            threshold: number;
                            atRiskCount: number;
                            improvingCount: number;
                            /** @description Engine extension: the churn calibration the topRisks probabilities rest on (chs health learn fits it), or why there is none */
                            churnCalibration: {
                                available: boolean;
                                /** @description The learned model whose scores are calibrated; null for the hand-written weights */
                                model: number | null;
                                horizonDays: number | null;
                                /** @description Renewal outcomes the calibration was fitted on */
                                outcomes: number | null;
                                /** @description What the churn probability is, or why there is none */
                                text: string;
                            };
                        };
                        lists: {
                            topRisks: {
                                clientId: string;
                                name: string;
                                score: number;
                                mrr: number;
                                reason: string;
                                reasonCode: string;
                                /** @description Engine extension: the calibrated chance this client churns at a renewal health.churnCalibration.horizonDays later; null without a calibration */
                                churnProbability: number | null;
                            }[];
                            topImproving: {
                                clientId: string;
                                name: string;
                                score: number;
                                scoreChange: number;
                                mrr: number;
                            }[];
                            renewals: {
                                clientId: string;
                                name: string;
                                /** Format: date */
                                renewalDate: string;
                                mrr: number;
                                daysUntil: number;
                            }[];
                        };
                        windowDays: number;
                        /** Format: date-time */
                        asOf: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getHealthTrend: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days, 1-365 (default 30) */
                windowDays?: number;
                /** @description daily (default), weekly (ISO weeks), monthly */
                interval?: "daily" | "weekly" | "monthly";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Buckets from oldest to newest; a bucket's date is its first day */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date */
                        date: string;
                        avgScore: number;
                        clientCount: number;
                    }[];
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getSentimentTrend: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days, 1-365 (default 30) */
                windowDays?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date */
                        date: string;
                        /** @description Mean sentiment mapped to [0, 1]; 0.5 is neutral */
                        avgSentiment: number;
                        volume: number;
                        positive: number;
                        neutral: number;
                        negative: number;
                    }[];
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getInteractionMix: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days, 1-365 (default 30) */
                windowDays?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The interaction type (email, meeting, call, note, support_ticket, …) */
                        source: string;
                        count: number;
                        /** @description One decimal; the items sum to exactly 100 */
                        percentage: number;
                    }[];
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getScoreDeltas: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days, 1-365 (default 7) */
                windowDays?: number;
                /** @description Smallest |score change| listed, 0-100 (default 10) */
                minDelta?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        reason: string;
                        totalDelta: number;
                        count: number;
                        avgDelta: number;
                        clients: {
                            id: string;
                            name: string;
                            delta: number;
                            currentScore: number;
                            previousScore: number;
                        }[];
                    }[];
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getEmailEngagement: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days, 1-365 (default 30) */
                windowDays?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        avgOpenRate: number;
                        avgResponseRate: number;
                        totalEmailsSent: number;
                        totalEmailsReceived: number;
                        totalClients: number;
                        topEngaged: {
                            clientId: string;
                            name: string;
                            openRate: number;
                            responseRate: number;
                            emailCount: number;
                        }[];
                        leastEngaged: {
                            clientId: string;
                            name: string;
                            openRate: number;
                            responseRate: number;
                            emailCount: number;
                        }[];
                        /** @description Extension: whether any outbound e-mail in the window carried open tracking */
                        openTrackingEnabled: boolean;
                        /** @description Extension: what the open rate means here */
                        note: string;
                        windowDays: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listHealthModels: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension (not in the spec): the learned health models of the workspace */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "active": null,
                     *       "models": [
                     *         {
                     *           "version": 2,
                     *           "status": "offered",
                     *           "createdAt": "2025-06-30T09:00:00.000Z",
                     *           "appliedAt": null,
                     *           "previousVersion": null,
                     *           "horizonDays": 60,
                     *           "outcomes": 142,
                     *           "churned": 23,
                     *           "from": "2024-07-02",
                     *           "to": "2025-06-27",
                     *           "weights": {
                     *             "sentiment": 0.22,
                     *             "engagement": 0.18,
                     *             "responsiveness": 0.2,
                     *             "recency": 0.4
                     *           },
                     *           "intercept": -1.8423,
                     *           "coefficients": {
                     *             "sentiment": -0.9,
                     *             "engagement": -0.74,
                     *             "responsiveness": -0.82,
                     *             "recency": -1.63,
                     *             "churn_intent": 1.21,
                     *             "escalation": 0.64,
                     *             "unanswered": 0.38,
                     *             "gone_quiet": 0.52,
                     *             "slow_replies": 0.17,
                     *             "negative_tone": 0.29
                     *           },
                     *           "lambda": 1,
                     *           "heldOut": {
                     *             "outcomes": 113,
                     *             "churned": 19,
                     *             "folds": 4,
                     *             "aucLearned": 0.8112,
                     *             "aucDefault": 0.7634
                     *           },
                     *           "calibration": {
                     *             "a": -3.1,
                     *             "b": 4.6
                     *           },
                     *           "baseline": {
                     *             "weights": {
                     *               "sentiment": 0.25,
                     *               "engagement": 0.25,
                     *               "responsiveness": 0.25,
                     *               "recency": 0.25
                     *             },
                     *             "calibration": {
                     *               "a": -3,
                     *               "b": 4.2
                     *             }
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        active: number | null;
                        /** @description Every model learned, newest first */
                        models: {
                            /** @description The model number in the workspace (1, 2, …); what apply takes */
                            version: number;
                            /** @description `offered`: it beat the hand-written weights on later renewals and may be applied; `rejected`: it did not (kept for the record, cannot be applied); `active`: in use; `retired`: was in use (may be applied again) */
                            status: "offered" | "rejected" | "active" | "retired";
                            /** Format: date-time */
                            createdAt: string;
                            appliedAt: string | null;
                            previousVersion: number | null;
                            /** @description Days before each renewal the scores were read */
                            horizonDays: number;
                            /** @description Renewals it learned from (with a score `horizonDays` before) */
                            outcomes: number;
                            /** @description Churns among them */
                            churned: number;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            /** @description The share of each component in the score (0-1; they sum to about 1) */
                            weights: {
                                sentiment: number;
                                engagement: number;
                                responsiveness: number;
                                recency: number;
                            };
                            /** @description Intercept of the logistic model the weights come from */
                            intercept: number;
                            /** @description Coefficient of each feature: the four components (per 100 points) and the risk signals (0/1); negative lowers the churn odds */
                            coefficients: {
                                [key: string]: number;
                            };
                            /** @description Ridge penalty of the fit */
                            lambda: number;
                            /** @description Cross-validation by time: each later block of renewals scored by weights fitted on the earlier ones only (aucLearned) and by the hand-written weights (aucDefault) */
                            heldOut: {
                                outcomes: number;
                                churned: number;
                                folds: number;
                                aucLearned: number | null;
                                aucDefault: number | null;
                            };
                            calibration: {
                                a: number;
                                b: number;
                            } | null;
                            /** @description The hand-written weights on the same renewals, and their calibration */
                            baseline: {
                                /** @description The share of each component in the score (0-1; they sum to about 1) */
                                weights: {
                                    sentiment: number;
                                    engagement: number;
                                    responsiveness: number;
                                    recency: number;
                                };
                                calibration: {
                                    a: number;
                                    b: number;
                                } | null;
                            };
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    learnHealthModel: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Extension (not in the spec): how to learn the weights */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description Days before each renewal the score is read, 1-365 (default 60)
                     * @default 60
                     */
                    days?: number;
                };
            };
        };
        responses: {
            /** @description Extension (not in the spec): the model a fit stored, offered or rejected */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description Extension (not in the spec): health weights learned from the renewal outcomes
                         * @example {
                         *       "version": 2,
                         *       "status": "offered",
                         *       "createdAt": "2025-06-30T09:00:00.000Z",
                         *       "appliedAt": null,
                         *       "previousVersion": null,
                         *       "horizonDays": 60,
                         *       "outcomes": 142,
                         *       "churned": 23,
                         *       "from": "2024-07-02",
                         *       "to": "2025-06-27",
                         *       "weights": {
                         *         "sentiment": 0.22,
                         *         "engagement": 0.18,
                         *         "responsiveness": 0.2,
                         *         "recency": 0.4
                         *       },
                         *       "intercept": -1.8423,
                         *       "coefficients": {
                         *         "sentiment": -0.9,
                         *         "engagement": -0.74,
                         *         "responsiveness": -0.82,
                         *         "recency": -1.63,
                         *         "churn_intent": 1.21,
                         *         "escalation": 0.64,
                         *         "unanswered": 0.38,
                         *         "gone_quiet": 0.52,
                         *         "slow_replies": 0.17,
                         *         "negative_tone": 0.29
                         *       },
                         *       "lambda": 1,
                         *       "heldOut": {
                         *         "outcomes": 113,
                         *         "churned": 19,
                         *         "folds": 4,
                         *         "aucLearned": 0.8112,
                         *         "aucDefault": 0.7634
                         *       },
                         *       "calibration": {
                         *         "a": -3.1,
                         *         "b": 4.6
                         *       },
                         *       "baseline": {
                         *         "weights": {
                         *           "sentiment": 0.25,
                         *           "engagement": 0.25,
                         *           "responsiveness": 0.25,
                         *           "recency": 0.25
                         *         },
                         *         "calibration": {
                         *           "a": -3,
                         *           "b": 4.2
                         *         }
                         *       }
                         *     }
                         */
                        model: {
                            /** @description The model number in the workspace (1, 2, …); what apply takes */
                            version: number;
                            /** @description `offered`: it beat the hand-written weights on later renewals and may be applied; `rejected`: it did not (kept for the record, cannot be applied); `active`: in use; `retired`: was in use (may be applied again) */
                            status: "offered" | "rejected" | "active" | "retired";
                            /** Format: date-time */
                            createdAt: string;
                            appliedAt: string | null;
                            previousVersion: number | null;
                            /** @description Days before each renewal the scores were read */
                            horizonDays: number;
                            /** @description Renewals it learned from (with a score `horizonDays` before) */
                            outcomes: number;
                            /** @description Churns among them */
                            churned: number;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            /** @description The share of each component in the score (0-1; they sum to about 1) */
                            weights: {
                                sentiment: number;
                                engagement: number;
                                responsiveness: number;
                                recency: number;
                            };
                            /** @description Intercept of the logistic model the weights come from */
                            intercept: number;
                            /** @description Coefficient of each feature: the four components (per 100 points) and the risk signals (0/1); negative lowers the churn odds */
                            coefficients: {
                                [key: string]: number;
                            };
                            /** @description Ridge penalty of the fit */
                            lambda: number;
                            /** @description Cross-validation by time: each later block of renewals scored by weights fitted on the earlier ones only (aucLearned) and by the hand-written weights (aucDefault) */
                            heldOut: {
                                outcomes: number;
                                churned: number;
                                folds: number;
                                aucLearned: number | null;
                                aucDefault: number | null;
                            };
                            calibration: {
                                a: number;
                                b: number;
                            } | null;
                            /** @description The hand-written weights on the same renewals, and their calibration */
                            baseline: {
                                /** @description The share of each component in the score (0-1; they sum to about 1) */
                                weights: {
                                    sentiment: number;
                                    engagement: number;
                                    responsiveness: number;
                                    recency: number;
                                };
                                calibration: {
                                    a: number;
                                    b: number;
                                } | null;
                            };
                        };
                        /** @description What the fit found and whether it is offered, in words */
                        summary: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    applyHealthModel: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The model number (GET /health/models) */
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension (not in the spec): the model now in use */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description Extension (not in the spec): health weights learned from the renewal outcomes
                         * @example {
                         *       "version": 2,
                         *       "status": "offered",
                         *       "createdAt": "2025-06-30T09:00:00.000Z",
                         *       "appliedAt": null,
                         *       "previousVersion": null,
                         *       "horizonDays": 60,
                         *       "outcomes": 142,
                         *       "churned": 23,
                         *       "from": "2024-07-02",
                         *       "to": "2025-06-27",
                         *       "weights": {
                         *         "sentiment": 0.22,
                         *         "engagement": 0.18,
                         *         "responsiveness": 0.2,
                         *         "recency": 0.4
                         *       },
                         *       "intercept": -1.8423,
                         *       "coefficients": {
                         *         "sentiment": -0.9,
                         *         "engagement": -0.74,
                         *         "responsiveness": -0.82,
                         *         "recency": -1.63,
                         *         "churn_intent": 1.21,
                         *         "escalation": 0.64,
                         *         "unanswered": 0.38,
                         *         "gone_quiet": 0.52,
                         *         "slow_replies": 0.17,
                         *         "negative_tone": 0.29
                         *       },
                         *       "lambda": 1,
                         *       "heldOut": {
                         *         "outcomes": 113,
                         *         "churned": 19,
                         *         "folds": 4,
                         *         "aucLearned": 0.8112,
                         *         "aucDefault": 0.7634
                         *       },
                         *       "calibration": {
                         *         "a": -3.1,
                         *         "b": 4.6
                         *       },
                         *       "baseline": {
                         *         "weights": {
                         *           "sentiment": 0.25,
                         *           "engagement": 0.25,
                         *           "responsiveness": 0.25,
                         *           "recency": 0.25
                         *         },
                         *         "calibration": {
                         *           "a": -3,
                         *           "b": 4.2
                         *         }
                         *       }
                         *     }
                         */
                        model: {
                            /** @description The model number in the workspace (1, 2, …); what apply takes */
                            version: number;
                            /** @description `offered`: it beat the hand-written weights on later renewals and may be applied; `rejected`: it did not (kept for the record, cannot be applied); `active`: in use; `retired`: was in use (may be applied again) */
                            status: "offered" | "rejected" | "active" | "retired";
                            /** Format: date-time */
                            createdAt: string;
                            appliedAt: string | null;
                            previousVersion: number | null;
                            /** @description Days before each renewal the scores were read */
                            horizonDays: number;
                            /** @description Renewals it learned from (with a score `horizonDays` before) */
                            outcomes: number;
                            /** @description Churns among them */
                            churned: number;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            /** @description The share of each component in the score (0-1; they sum to about 1) */
                            weights: {
                                sentiment: number;
                                engagement: number;
                                responsiveness: number;
                                recency: number;
                            };
                            /** @description Intercept of the logistic model the weights come from */
                            intercept: number;
                            /** @description Coefficient of each feature: the four components (per 100 points) and the risk signals (0/1); negative lowers the churn odds */
                            coefficients: {
                                [key: string]: number;
                            };
                            /** @description Ridge penalty of the fit */
                            lambda: number;
                            /** @description Cross-validation by time: each later block of renewals scored by weights fitted on the earlier ones only (aucLearned) and by the hand-written weights (aucDefault) */
                            heldOut: {
                                outcomes: number;
                                churned: number;
                                folds: number;
                                aucLearned: number | null;
                                aucDefault: number | null;
                            };
                            calibration: {
                                a: number;
                                b: number;
                            } | null;
                            /** @description The hand-written weights on the same renewals, and their calibration */
                            baseline: {
                                /** @description The share of each component in the score (0-1; they sum to about 1) */
                                weights: {
                                    sentiment: number;
                                    engagement: number;
                                    responsiveness: number;
                                    recency: number;
                                };
                                calibration: {
                                    a: number;
                                    b: number;
                                } | null;
                            };
                        };
                        /** @description Clients whose score from today was rebuilt with the model now in use */
                        clientsRescored: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    revertHealthModel: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension (not in the spec): the model in use after going back one step */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The learned model in use again; null: the hand-written weights */
                        model: {
                            /** @description The model number in the workspace (1, 2, …); what apply takes */
                            version: number;
                            /** @description `offered`: it beat the hand-written weights on later renewals and may be applied; `rejected`: it did not (kept for the record, cannot be applied); `active`: in use; `retired`: was in use (may be applied again) */
                            status: "offered" | "rejected" | "active" | "retired";
                            /** Format: date-time */
                            createdAt: string;
                            appliedAt: string | null;
                            previousVersion: number | null;
                            /** @description Days before each renewal the scores were read */
                            horizonDays: number;
                            /** @description Renewals it learned from (with a score `horizonDays` before) */
                            outcomes: number;
                            /** @description Churns among them */
                            churned: number;
                            /** Format: date */
                            from: string;
                            /** Format: date */
                            to: string;
                            /** @description The share of each component in the score (0-1; they sum to about 1) */
                            weights: {
                                sentiment: number;
                                engagement: number;
                                responsiveness: number;
                                recency: number;
                            };
                            /** @description Intercept of the logistic model the weights come from */
                            intercept: number;
                            /** @description Coefficient of each feature: the four components (per 100 points) and the risk signals (0/1); negative lowers the churn odds */
                            coefficients: {
                                [key: string]: number;
                            };
                            /** @description Ridge penalty of the fit */
                            lambda: number;
                            /** @description Cross-validation by time: each later block of renewals scored by weights fitted on the earlier ones only (aucLearned) and by the hand-written weights (aucDefault) */
                            heldOut: {
                                outcomes: number;
                                churned: number;
                                folds: number;
                                aucLearned: number | null;
                                aucDefault: number | null;
                            };
                            calibration: {
                                a: number;
                                b: number;
                            } | null;
                            /** @description The hand-written weights on the same renewals, and their calibration */
                            baseline: {
                                /** @description The share of each component in the score (0-1; they sum to about 1) */
                                weights: {
                                    sentiment: number;
                                    engagement: number;
                                    responsiveness: number;
                                    recency: number;
                                };
                                calibration: {
                                    a: number;
                                    b: number;
                                } | null;
                            };
                        } | null;
                        /** @description Clients whose score from today was rebuilt with the model now in use */
                        clientsRescored: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getIngestEmailStats: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Days, 1-90 (default 30) */
                windowDays?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        windowDays: number;
                        emailsProcessed: number;
                        emailsInbound: number;
                        emailsOutbound: number;
                        openTrackingEnabled: boolean;
                        openRate: number;
                        responseRate: number;
                        /** @description Mean e-mail sentiment mapped to [0, 1]; 0.5 (neutral) without e-mails */
                        avgSentimentScore: number;
                        topClients: {
                            clientId: string;
                            clientName: string;
                            emailCount: number;
                            avgSentiment: number;
                            openRate: number;
                        }[];
                        processingErrors: {
                            parseErrors: number;
                            attachmentErrors: number;
                            sentimentErrors: number;
                            charsetErrors: number;
                        };
                        note: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getIntegrationStatus: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description google, hubspot or intercom */
                provider: "google" | "hubspot" | "intercom";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        connected: boolean;
                        provider: string;
                        workspaceId: string;
                        email: string | null;
                        expiresAt: string | null;
                        hasRefresh: boolean;
                        lastSyncAt: string | null;
                        scope: string | null;
                        /** @description extension: connected, needs_reauth, disconnected or not_connected */
                        state: string;
                        /** @description extension: every connected account (each CSM’s Google mailbox syncs on its own). The spec’s fields describe the workspace: connected when any account is; email, expiresAt, hasRefresh and scope of the first connected account; lastSyncAt the oldest of the connected accounts’ (every one was synced since) */
                        accounts: {
                            /** @description the mailbox address (Google); empty for HubSpot and Intercom */
                            account: string;
                            email: string | null;
                            /** @description connected, needs_reauth or disconnected */
                            state: string;
                            lastSyncAt: string | null;
                            lastError: string | null;
                            expiresAt: string | null;
                            hasRefresh: boolean;
                            /** @description ISO 8601 */
                            connectedAt: string;
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getHubSpotSettings: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Extension (not in the spec): the HubSpot integration’s settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        provider: "hubspot";
                        workspaceId: string;
                        /** @description The deal pipeline whose closed deals are renewal outcomes (closed won: renewed; closed lost: churned; dated by the deal’s close date); null: none, no deal is read */
                        renewalPipelineId: string | null;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    updateHubSpotSettings: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Map the renewal pipeline (its id), or unmap it (null). Absent: unchanged */
                    renewalPipelineId?: string | null;
                };
            };
        };
        responses: {
            /** @description Extension (not in the spec): the HubSpot integration’s settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        provider: "hubspot";
                        workspaceId: string;
                        /** @description The deal pipeline whose closed deals are renewal outcomes (closed won: renewed; closed lost: churned; dated by the deal’s close date); null: none, no deal is read */
                        renewalPipelineId: string | null;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    startIngestRun: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The workspace domain, e.g. acme.com */
                    workspaceId?: string;
                    /**
                     * @description quick (incremental from the saved cursor, default) or full (windowed resync)
                     * @default quick
                     */
                    syncType?: "quick" | "full";
                    /** @description Default: every connected integration */
                    sources?: ("google" | "hubspot" | "intercom")[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        /** @description The run id: one per request, whatever the number of sources */
                        jobId: string;
                        /** @enum {string} */
                        status: "started";
                        /** @description e.g. `45s`, `3m 20s`, `1h 5m`, or `unknown` */
                        estimatedDuration: string;
                        sources: ("google" | "hubspot" | "intercom")[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getIngestStatus: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description A run id (from POST /ingest/run) or a job id */
                jobId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        currentJob: {
                            /** @description The run id (one per POST /ingest/run) */
                            jobId: string;
                            /** @description queued, running, parked, completed, failed or cancelled */
                            status: "queued" | "running" | "parked" | "completed" | "failed" | "cancelled";
                            /** @description Percent done (an estimate): the mean of the sources' progress; 0 while no source knows its total */
                            progress: number;
                            startedAt: string | null;
                            estimatedCompletion: string | null;
                            sources: {
                                [key: string]: {
                                    /** @description queued, running, parked, completed, failed or cancelled */
                                    status: "queued" | "running" | "parked" | "completed" | "failed" | "cancelled";
                                    /** @description Items stored (exact, committed with the data; cumulative over every attempt of the job) */
                                    itemsProcessed: number;
                                    /** @description Extension: items read from the source so far, stored or not yet (updated every second or so while the job reads) */
                                    itemsRead?: number;
                                    /** Format: date-time */
                                    lastSyncAt?: string;
                                    /** @description The source's own count of what this job reads (an estimate); absent when the source cannot say */
                                    totalItems?: number;
                                    /** @description Percent read of totalItems (an estimate); absent without a total */
                                    progress?: number;
                                    /** @description Extension: items read per second, measured over this attempt of the job */
                                    rate?: number;
                                    /** Format: date-time */
                                    estimatedCompletion?: string;
                                    /** @description Extension: `reading` the source, or `rebuilding` the health history of the clients it touched (the last step) */
                                    phase?: "reading" | "rebuilding";
                                    /** @description Extension: present while the job waits on a provider (parked on a quota, or sleeping out a Retry-After); `until` is when it resumes */
                                    waiting?: {
                                        /** @description In words: the provider's limit or error the job waits on */
                                        reason: string;
                                        until: string | null;
                                    };
                                };
                            };
                            /** @description Extension: items read, over every source */
                            itemsRead?: number;
                            /** @description Extension: items stored, over every source */
                            itemsProcessed?: number;
                            /** @description Extension: the sum of the totals, when every source has one */
                            totalItems?: number;
                            /** @description Extension: items read per second, measured over this attempt of the job */
                            rate?: number;
                            /** @description Extension: present while the job waits on a provider (parked on a quota, or sleeping out a Retry-After); `until` is when it resumes */
                            waiting?: {
                                /** @description In words: the provider's limit or error the job waits on */
                                reason: string;
                                until: string | null;
                            };
                        } | null;
                        recentJobs: {
                            jobId: string;
                            /** @description queued, running, parked, completed, failed or cancelled */
                            status: "queued" | "running" | "parked" | "completed" | "failed" | "cancelled";
                            completedAt: string | null;
                            /** @description e.g. `45s`, `3m 20s`, `1h 5m`, or `unknown` */
                            duration: string;
                            itemsProcessed: number;
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listIngestHistory: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description Records per page, 1-100 (default 20) */
                limit?: number;
                /** @description Records to skip (default 0); the spec reports it in pagination */
                offset?: number;
                /** @description google, hubspot or intercom */
                source?: "google" | "hubspot" | "intercom";
                /** @description running also matches queued and parked jobs (not finished yet) */
                status?: "completed" | "failed" | "running";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        syncHistory: {
                            /** @description The run id: the id the start endpoint gave (jobId, syncId, backfillId, sessionId) */
                            jobId: string;
                            /** @description Extension: this source's own job id (the run id itself for a run of one source) */
                            sourceJobId: string;
                            source: string;
                            /** @description queued, running, parked, completed, failed or cancelled */
                            status: "queued" | "running" | "parked" | "completed" | "failed" | "cancelled";
                            startedAt: string | null;
                            completedAt: string | null;
                            /** @description e.g. `45s`, `3m 20s`, `1h 5m`, or `unknown` */
                            duration: string;
                            itemsProcessed: number;
                            itemsAdded: number;
                            itemsUpdated: number;
                            itemsSkipped: number;
                            errors: {
                                message: string;
                                count: number;
                                severity: string;
                            }[];
                        }[];
                        pagination: {
                            total: number;
                            limit: number;
                            offset: number;
                            hasMore: boolean;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    startIngestBackfill: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The workspace domain, e.g. acme.com */
                    workspaceId?: string;
                    /** @description google, hubspot or intercom */
                    source: "google" | "hubspot" | "intercom";
                    /**
                     * Format: date-time
                     * @description ISO 8601 date-time, start of the window
                     */
                    fromDate: string;
                    /**
                     * Format: date-time
                     * @description ISO 8601 date-time; default now
                     */
                    toDate?: string;
                    /** @description google: emails; hubspot: companies, contacts, emails, meetings, calls, notes; intercom: contacts, companies, conversations. Default: all of the provider’s */
                    dataTypes?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        backfillId: string;
                        estimatedItems: number | null;
                        /** @description e.g. `45s`, `3m 20s`, `1h 5m`, or `unknown` */
                        estimatedDuration: string;
                        /** @enum {string} */
                        status: "queued";
                        source: "google" | "hubspot" | "intercom";
                        dateRange: {
                            /** Format: date-time */
                            from: string;
                            /** Format: date-time */
                            to: string;
                        };
                        dataTypes: string[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    cancelIngestJob: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                        jobId: string;
                        /** @enum {string} */
                        status: "cancelled";
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    syncIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description google, hubspot or intercom */
                provider: "google" | "hubspot" | "intercom";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The workspace domain, e.g. acme.com */
                    workspaceId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                        syncId: string;
                        /** Format: date-time */
                        startedAt: string;
                        estimatedDuration: number | null;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    backfillIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description google, hubspot or intercom */
                provider: "google" | "hubspot" | "intercom";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The workspace domain, e.g. acme.com */
                    workspaceId: string;
                    /** @description Days back from now to read, 1-365 */
                    sinceDays: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                        jobId: string;
                        /** Format: date-time */
                        startDate: string;
                        /** Format: date-time */
                        endDate: string;
                        estimatedRecords: number | null;
                        /** @enum {string} */
                        status: "processing";
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    authorizeGoogle: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Google’s consent URL: send the user’s browser there */
                        url: string;
                        /** @description ISO 8601: the flow must be completed before this (10 minutes) */
                        expiresAt: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    googleCallback: {
        parameters: {
            query?: {
                /** @description The single-use state the authorize call put in the consent URL */
                state?: string;
                /** @description The authorization code */
                code?: string;
                /** @description Set instead of code when the user refused (access_denied) or the provider refused the request */
                error?: string;
                error_description?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Connected: on to CHS_PUBLIC_URL */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The Google sign-in was refused (OAUTH_FAILED): denied consent, bad, expired or used state, a code Google refused */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description The workspace the Google sign-in was started for no longer exists */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description The Google sign-in is not configured on this server (OAUTH_NOT_CONFIGURED) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Google answered with an error (PROVIDER_ERROR) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    authorizeHubSpot: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description HubSpot’s install URL: send the user’s browser there */
                        url: string;
                        /** @description ISO 8601: the flow must be completed before this (10 minutes) */
                        expiresAt: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    hubspotCallback: {
        parameters: {
            query?: {
                /** @description The single-use state the authorize call put in the consent URL */
                state?: string;
                /** @description The authorization code */
                code?: string;
                /** @description Set instead of code when the user refused (access_denied) or the provider refused the request */
                error?: string;
                error_description?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Connected: on to CHS_PUBLIC_URL */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The HubSpot install was refused (OAUTH_FAILED): denied consent, bad, expired or used state, a code HubSpot refused */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description The workspace the HubSpot install was started for no longer exists */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description The HubSpot install is not configured on this server (OAUTH_NOT_CONFIGURED) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description HubSpot answered with an error (PROVIDER_ERROR) */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    disconnectIntegration: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description One account only (a Google mailbox address); default every account of the provider */
                account?: string;
            };
            header?: never;
            path: {
                /** @description google, hubspot or intercom */
                provider: "google" | "hubspot" | "intercom";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        provider: string;
                        workspaceId: string;
                        /** @description Whether there was a connection; its credentials are forgotten either way */
                        disconnected: boolean;
                        /** @description true: the provider confirmed the revoke; false: it did not (revokeError says why; the credentials were forgotten all the same); null: nothing to revoke */
                        revoked: boolean | null;
                        revokeError: string | null;
                        message: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    startLargeIngestion: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The workspace domain, e.g. acme.com */
                    workspaceId: string;
                    /** @description Days back from now, 1-365 */
                    sinceDays: number;
                    /**
                     * @description Stop after this many messages, 1-50000 (default 10000)
                     * @default 10000
                     */
                    maxEmails?: number;
                    /**
                     * @description Messages per write transaction (one checkpoint each), 1-1000 (default 500)
                     * @default 500
                     */
                    batchSize?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                        sessionId: string;
                        config: {
                            workspaceId: string;
                            sinceDays: number;
                            maxEmails: number;
                            batchSize: number;
                            /** Format: date-time */
                            startDate: string;
                        };
                        /** @enum {string} */
                        status: "initializing" | "processing";
                        /** @description e.g. `45s`, `3m 20s`, `1h 5m`, or `unknown` */
                        estimatedDuration: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getLargeIngestionStatus: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessionId: string;
                        /** @enum {string} */
                        status: "initializing" | "processing" | "completed" | "failed";
                        progress: {
                            /** @description Messages stored (exact; moves with each committed batch) */
                            emailsProcessed: number;
                            /** @description Extension: messages read from Gmail so far, stored or not yet (updated every second or so) */
                            emailsRead?: number;
                            totalEmails: number | null;
                            /** @description Percent read of totalEmails (an estimate); 0 without a total */
                            percentComplete: number;
                            batchesCompleted: number;
                            totalBatches: number | null;
                        };
                        /** @description Extension: present while the job waits on a provider (parked on a quota, or sleeping out a Retry-After); `until` is when it resumes */
                        waiting?: {
                            /** @description In words: the provider's limit or error the job waits on */
                            reason: string;
                            until: string | null;
                        };
                        timing: {
                            /** Format: date-time */
                            startedAt: string;
                            /** Format: date-time */
                            lastUpdateAt: string;
                            estimatedCompletionAt: string | null;
                            elapsedSeconds: number;
                        };
                        stats: {
                            clientsIdentified: number;
                            contactsCreated: number;
                            interactionsCreated: number;
                            errorsCount: number;
                        };
                        errors: {
                            /** Format: date-time */
                            timestamp: string;
                            message: string;
                            recoverable: boolean;
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listWebhookEventTypes: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        eventTypes: {
                            /** @description An event type (GET /settings/webhooks/event-types) */
                            type: "client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth";
                            description: string;
                            /** @description The JSON Schema of a whole payload of this type (envelope and `data`) */
                            schema: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhooks: {
                            /** @description The endpoint id (`wh_…`) */
                            id: string;
                            /** @description Where deliveries are POSTed */
                            url: string;
                            /** @description The event types it receives */
                            events: ("client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth")[];
                            /** @description `standard`: signed Standard Webhooks deliveries of the event as JSON; `slack`: a Slack incoming webhook, sent readable Block Kit messages */
                            kind: "standard" | "slack";
                            enabled: boolean;
                            disabledReason: ("user" | "gone" | "failing") | null;
                            description: string | null;
                            /** @description The first failed delivery since the last success; null while deliveries succeed */
                            failingSince: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description https URL the deliveries are POSTed to (a Slack incoming-webhook URL for kind `slack`). Its host must resolve to public addresses only, unless the operator allows private targets (CHS_WEBHOOKS_ALLOW_PRIVATE); http only when allowed (CHS_WEBHOOKS_ALLOW_HTTP). Checked again at every delivery. */
                    url: string;
                    /** @description Event types to receive, at least one: client.risk_entered, client.risk_cleared, client.score_changed, client.churn_intent, client.escalation, client.suggested, job.completed, job.failed, integration.needs_reauth (GET /settings/webhooks/event-types) */
                    events: string[];
                    /** @description `standard`: signed Standard Webhooks deliveries of the event as JSON; `slack`: a Slack incoming webhook, sent readable Block Kit messages */
                    kind?: "standard" | "slack";
                    /** @description What the endpoint is for (at most 500 characters) */
                    description?: string | null;
                    /** @description The workspace domain, e.g. acme.com */
                    workspaceId?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: {
                            /** @description The endpoint id (`wh_…`) */
                            id: string;
                            /** @description Where deliveries are POSTed */
                            url: string;
                            /** @description The event types it receives */
                            events: ("client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth")[];
                            /** @description `standard`: signed Standard Webhooks deliveries of the event as JSON; `slack`: a Slack incoming webhook, sent readable Block Kit messages */
                            kind: "standard" | "slack";
                            enabled: boolean;
                            disabledReason: ("user" | "gone" | "failing") | null;
                            description: string | null;
                            /** @description The first failed delivery since the last success; null while deliveries succeed */
                            failingSince: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                            /** @description The signing secret (`whsec_` + base64), shown in this answer only: verify deliveries with it (Standard Webhooks) */
                            secret: string;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The endpoint id (`wh_…`) */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: {
                            /** @description The endpoint id (`wh_…`) */
                            id: string;
                            /** @description Where deliveries are POSTed */
                            url: string;
                            /** @description The event types it receives */
                            events: ("client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth")[];
                            /** @description `standard`: signed Standard Webhooks deliveries of the event as JSON; `slack`: a Slack incoming webhook, sent readable Block Kit messages */
                            kind: "standard" | "slack";
                            enabled: boolean;
                            disabledReason: ("user" | "gone" | "failing") | null;
                            description: string | null;
                            /** @description The first failed delivery since the last success; null while deliveries succeed */
                            failingSince: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The endpoint id (`wh_…`) */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        success: boolean;
                        message: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The endpoint id (`wh_…`) */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description https URL the deliveries are POSTed to (a Slack incoming-webhook URL for kind `slack`). Its host must resolve to public addresses only, unless the operator allows private targets (CHS_WEBHOOKS_ALLOW_PRIVATE); http only when allowed (CHS_WEBHOOKS_ALLOW_HTTP). Checked again at every delivery. */
                    url?: string;
                    /** @description Event types to receive, at least one: client.risk_entered, client.risk_cleared, client.score_changed, client.churn_intent, client.escalation, client.suggested, job.completed, job.failed, integration.needs_reauth (GET /settings/webhooks/event-types) */
                    events?: string[];
                    /** @description What the endpoint is for (at most 500 characters) */
                    description?: string | null;
                    /** @description `false` disables it (disabledReason `user`); `true` enables it again and clears its failure streak: its pending deliveries go out */
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: {
                            /** @description The endpoint id (`wh_…`) */
                            id: string;
                            /** @description Where deliveries are POSTed */
                            url: string;
                            /** @description The event types it receives */
                            events: ("client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth")[];
                            /** @description `standard`: signed Standard Webhooks deliveries of the event as JSON; `slack`: a Slack incoming webhook, sent readable Block Kit messages */
                            kind: "standard" | "slack";
                            enabled: boolean;
                            disabledReason: ("user" | "gone" | "failing") | null;
                            description: string | null;
                            /** @description The first failed delivery since the last success; null while deliveries succeed */
                            failingSince: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The endpoint id (`wh_…`) */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The test event’s id: its deliveries carry it as `webhook-id` */
                        eventId: string;
                        deliveryId: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The endpoint id (`wh_…`) */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: {
                            /** @description The endpoint id (`wh_…`) */
                            id: string;
                            /** @description Where deliveries are POSTed */
                            url: string;
                            /** @description The event types it receives */
                            events: ("client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth")[];
                            /** @description `standard`: signed Standard Webhooks deliveries of the event as JSON; `slack`: a Slack incoming webhook, sent readable Block Kit messages */
                            kind: "standard" | "slack";
                            enabled: boolean;
                            disabledReason: ("user" | "gone" | "failing") | null;
                            description: string | null;
                            /** @description The first failed delivery since the last success; null while deliveries succeed */
                            failingSince: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            updatedAt: string;
                        };
                        /** @description The signing secret (`whsec_` + base64), shown in this answer only: verify deliveries with it (Standard Webhooks) */
                        secret: string;
                        /**
                         * Format: date-time
                         * @description Until then every delivery carries two signatures, one per secret, so a receiver can switch at its own pace
                         */
                        previousSecretValidUntil: string;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
                /** @description `pending` (due, or waiting for its next retry), `succeeded` (a 2xx answer), `failed` (given up: retries spent, or 410) */
                state?: "pending" | "succeeded" | "failed";
                /** @description Page size, 1-200 (default 50) */
                limit?: number;
                /** @description Items to skip (default 0) */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description The endpoint id (`wh_…`) */
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        deliveries: {
                            /** @description The delivery id (`dlv_…`) */
                            id: string;
                            /** @description The event id (`evt_…`), sent as `webhook-id`: the same on every attempt and redelivery */
                            eventId: string;
                            /** @description The event’s type (`webhook.test` for a test event) */
                            eventType: "client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth" | "webhook.test";
                            /** @description `pending` (due, or waiting for its next retry), `succeeded` (a 2xx answer), `failed` (given up: retries spent, or 410) */
                            state: "pending" | "succeeded" | "failed";
                            attempts: number;
                            /** @description When it is tried next (pending only) */
                            nextAttemptAt: string | null;
                            lastStatus: number | null;
                            lastError: string | null;
                            lastAttemptAt: string | null;
                            deliveredAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description The attempts, oldest first (the latest 20) */
                            history: {
                                /** Format: date-time */
                                at: string;
                                /** @description The receiver’s HTTP status; null when none came (refused, timed out, address not allowed) */
                                status: number | null;
                                error: string | null;
                                durationMs: number;
                            }[];
                        }[];
                        /** @description Deliveries matching (all pages) */
                        total: number;
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
    redeliverWebhook: {
        parameters: {
            query: {
                /** @description The workspace domain, e.g. acme.com */
                workspaceId: string;
            };
            header?: never;
            path: {
                /** @description The endpoint id (`wh_…`) */
                webhookId: string;
                /** @description The delivery id (`dlv_…`) */
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        delivery: {
                            /** @description The delivery id (`dlv_…`) */
                            id: string;
                            /** @description The event id (`evt_…`), sent as `webhook-id`: the same on every attempt and redelivery */
                            eventId: string;
                            /** @description The event’s type (`webhook.test` for a test event) */
                            eventType: "client.risk_entered" | "client.risk_cleared" | "client.score_changed" | "client.churn_intent" | "client.escalation" | "client.suggested" | "job.completed" | "job.failed" | "integration.needs_reauth" | "webhook.test";
                            /** @description `pending` (due, or waiting for its next retry), `succeeded` (a 2xx answer), `failed` (given up: retries spent, or 410) */
                            state: "pending" | "succeeded" | "failed";
                            attempts: number;
                            /** @description When it is tried next (pending only) */
                            nextAttemptAt: string | null;
                            lastStatus: number | null;
                            lastError: string | null;
                            lastAttemptAt: string | null;
                            deliveredAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            /** @description The attempts, oldest first (the latest 20) */
                            history: {
                                /** Format: date-time */
                                at: string;
                                /** @description The receiver’s HTTP status; null when none came (refused, timed out, address not allowed) */
                                status: number | null;
                                error: string | null;
                                durationMs: number;
                            }[];
                        };
                    };
                };
            };
            /** @description Error (see docs/errors.md) */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
            /** @description Server error */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Human-readable message */
                        error: string;
                        /** @description Stable machine code, see docs/errors.md */
                        code: string;
                        /** @description The HTTP status, repeated */
                        status: number;
                    };
                };
            };
        };
    };
}
