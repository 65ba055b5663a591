/** Schemas shared by route modules. */
import { Type, type Static } from '@sinclair/typebox';

/** The body of every 4xx/5xx response. */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ description: 'Stable machine code, see docs/errors.md' }),
    status: Type.Integer({ description: 'The HTTP status, repeated' }),
  },
  { additionalProperties: false },
);

/** `workspaceId`: the workspace domain. The auth hook has checked it equals the key's workspace. */
export const WorkspaceId = Type.String({ minLength: 1, maxLength: 253, description: 'The workspace domain, e.g. acme.com' });

/** The query of a route whose only query parameter is `workspaceId`; spread `.properties` to add more. */
export const WorkspaceQuery = Type.Object({ workspaceId: WorkspaceId });
export type WorkspaceQuery = Static<typeof WorkspaceQuery>;

/** The path parameter of the routes under /clients/{clientId}. */
export const ClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 200 }) });

export const SuccessMessage = Type.Object({ success: Type.Boolean(), message: Type.String() });
export type SuccessMessage = Static<typeof SuccessMessage>;
