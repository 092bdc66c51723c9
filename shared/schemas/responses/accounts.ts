import * as z from 'zod';
import { API_KEY_PREFIX } from '../../domain/accounts/api-keys.ts';
import { OWN_ALGORITHM } from '../../domain/accounts/jwt.ts';
import { API_KEY_STATUSES, PROVIDERS } from '../../domain/accounts/ports.ts';
import { PLAN_KEYS, SUBSCRIPTION_STATUSES, SUPPORT_LEVELS, UNLIMITED } from '../../domain/plans/plans.ts';
import { count, isoDateTime } from './common.ts';

/** A plan limit: a count, or -1 for unlimited. */
const limit = z.number().int().min(UNLIMITED);

export const user = z.strictObject({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  name: z.string(),
  image: z.string().nullable(),
  company: z.string().nullable(),
  provider: z.enum(PROVIDERS),
  isActive: z.boolean(),
  isAdmin: z.boolean(),
  isEmailVerified: z.boolean(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

/** `POST /auth/register` and `POST /auth/login`. */
export const session = z.strictObject({
  user,
  accessToken: z.string(),
  tokenType: z.literal('Bearer'),
  /** Seconds. */
  expiresIn: z.number().int().positive(),
});

const planFeatures = z.strictObject({
  spans: limit,
  agents: limit,
  retention: limit,
  alerts: z.boolean(),
  evaluations: z.boolean(),
  exports: z.boolean(),
  deepSearch: z.boolean(),
  semanticSearch: z.boolean(),
  smartSearch: z.boolean(),
  customLLMLogic: z.boolean(),
  modelTraining: z.boolean(),
  sso: z.boolean(),
  rbac: z.boolean(),
  support: z.enum(SUPPORT_LEVELS),
  trialDays: count,
});

const planKey = z.enum(PLAN_KEYS);
const subscriptionFields = {
  planName: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  spansUsed: count,
  spansLimit: limit,
  usagePercentage: z.number().min(0).max(100),
  cancelAtPeriodEnd: z.boolean(),
  currentPeriodEnd: isoDateTime,
  features: planFeatures,
};

/** The spec's subscription object; the trial fields are there only on the trial plan. */
const subscription = z.union([
  z.strictObject({
    plan: planKey.extract(['trial']),
    ...subscriptionFields,
    trialEndDate: isoDateTime,
    trialDaysRemaining: count,
    trialExpired: z.boolean(),
  }),
  z.strictObject({ plan: planKey.exclude(['trial']), ...subscriptionFields }),
]);

/** `GET /users/profile` answers the profile's fields at top level beside `success` (spec). */
export const userProfileBody = z.strictObject({
  success: z.literal(true),
  ...user.shape,
  subscription,
  resources: z.strictObject({ agentCount: count, activeApiKeyCount: count }),
});

export const emailVerified = z.strictObject({ message: z.string(), isEmailVerified: z.literal(true) });

/** A hosted sign-in the console offers: a public OAuth 2.0 client's settings (no secret) and the provider's endpoints. */
export const hostedSignInProvider = z.strictObject({
  name: z.string().describe('What the sign-in button names: "Sign in with <name>"'),
  issuer: z.url().describe("The tokens' `iss`: the user pool"),
  clientId: z.string().describe('The public app client (authorization code grant with PKCE)'),
  authorizationEndpoint: z.url(),
  tokenEndpoint: z.url(),
  revocationEndpoint: z.url(),
  logoutEndpoint: z.url().describe("Ends the provider's own session (Cognito's `/logout`)"),
  redirectUri: z.url().describe("The console's `/auth/callback`"),
  logoutUri: z.url().describe("Where the provider's logout returns to"),
  scopes: z.array(z.string()),
});

export const hostedSignIn = z.strictObject({ providers: z.array(hostedSignInProvider) });

/** An API key as listings show it: never the secret. */
export const apiKey = z.strictObject({
  id: z.string(),
  name: z.string(),
  prefix: z.string().startsWith(API_KEY_PREFIX),
  lastFour: z.string().length(4),
  status: z.enum(API_KEY_STATUSES),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
  lastUsedAt: isoDateTime.nullable(),
  rotatedAt: isoDateTime.nullable(),
  revokedAt: isoDateTime.nullable(),
});

/** A key just created or rotated: the full key, shown this once. */
export const issuedApiKey = apiKey.extend({ key: z.string().startsWith(API_KEY_PREFIX) });

/** The public signing key in the standard JWKS form verifiers expect (not enveloped). */
export const jwksDocument = z.strictObject({
  keys: z.array(
    z.strictObject({
      kty: z.literal('EC'),
      crv: z.literal('P-256'),
      x: z.base64url(),
      y: z.base64url(),
      kid: z.string(),
      alg: z.literal(OWN_ALGORITHM),
      use: z.literal('sig'),
    }),
  ),
});
