import { sealerFor } from '../../support/security/sealed.js';

// A payment channel's merchant key at rest (security/sealed.ts): sealed under SESSION_SECRET for this one use. It is
// never answered; changing SESSION_SECRET makes stored keys unreadable and the admin enters them again.
const sealer = sealerFor('payment channel key v1', 'payment_channels.key_cipher');

export const seal = sealer.seal;
export const open = sealer.open;
