import { sealerFor } from '../../support/security/sealed.js';

// The AI endpoint's API key at rest (security/sealed.ts): sealed under SESSION_SECRET for this one use. Changing
// SESSION_SECRET makes a stored key unreadable: the admin enters it again.
const sealer = sealerFor('ai-config api key v1', 'ai_config.api_key');

export const seal = sealer.seal;
export const open = sealer.open;
