import type { Ceremony } from '../config/types';
import { api } from '../api';
import { toast } from '../feedback';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { createOnDevice, type DeviceRefusal } from '../passkeys/device';

// What a form screen's `ceremony` names: a step on the device between filling a form and sending it. Each answers the
// value sent as the screen's `fills` field, or null when the device did not go through with it (told in a toast).

const passkeyRefusals: Record<DeviceRefusal, string> = {
  cancelled: w.passkeys.cancelled,
  already: w.passkeys.already,
  unsupported: w.passkeys.unsupported,
  failed: w.passkeys.failed,
};

export const ceremonies: Record<Ceremony, () => Promise<unknown>> = {
  async passkeyRegistration() {
    const options = await api.call('passkeyRegistrationOptions').catch(() => null);
    if (!options) return null; // the client already told why (a toast)
    // The contract's PasskeyCreationOptions is WebAuthn's PublicKeyCredentialCreationOptionsJSON, passed on as is.
    const made = await createOnDevice(options);
    if (made.ok) return made.value;
    toast(passkeyRefusals[made.refusal]);
    return null;
  },
};
