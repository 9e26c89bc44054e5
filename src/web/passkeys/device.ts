import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';

// The device's half of a passkey (@simplewebauthn/browser over navigator.credentials): loaded only when a passkey is
// made or used, so /login does not carry it. Answers what happened in words a screen can pick its message by.

export type DeviceRefusal = 'cancelled' | 'already' | 'unsupported' | 'failed';
export type DeviceOutcome<T> = { ok: true; value: T } | { ok: false; refusal: DeviceRefusal };

/** Whether this browser can make and use passkeys at all (no WebAuthn, no button). */
export const passkeysSupported = (): boolean =>
  typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';

function refusalOf(error: unknown): DeviceRefusal {
  const { code, name, cause } = error as { code?: string; name?: string; cause?: { name?: string } };
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return 'already';
  // The user closed the sheet, or the time ran out: browsers tell both as NotAllowedError, on purpose.
  if (name === 'NotAllowedError' || cause?.name === 'NotAllowedError' || code === 'ERROR_CEREMONY_ABORTED')
    return 'cancelled';
  return 'failed';
}

async function onDevice<T>(ceremony: () => Promise<T>): Promise<DeviceOutcome<T>> {
  if (!passkeysSupported()) return { ok: false, refusal: 'unsupported' };
  try {
    return { ok: true, value: await ceremony() };
  } catch (error) {
    return { ok: false, refusal: refusalOf(error) };
  }
}

/** Asks the device's authenticator for a new passkey for these options (passkeyRegistrationOptions' answer). */
export const createOnDevice = (optionsJSON: PublicKeyCredentialCreationOptionsJSON) =>
  onDevice<RegistrationResponseJSON>(async () =>
    (await import('@simplewebauthn/browser')).startRegistration({ optionsJSON }),
  );

/** Asks the device to sign in with one of its passkeys for this site (userLoginPasskeyOptions' answer). */
export const signInOnDevice = (optionsJSON: PublicKeyCredentialRequestOptionsJSON) =>
  onDevice<AuthenticationResponseJSON>(async () =>
    (await import('@simplewebauthn/browser')).startAuthentication({ optionsJSON }),
  );
