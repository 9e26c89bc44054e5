import { useState } from 'react';
import type { Schemas } from '../../api/operations';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { useOperation } from '../operations/useOperation';
import type { LoginUser } from '../state/session';
import { passkeysSupported, signInOnDevice } from './device';

/**
 * 使用通行密钥登录: a challenge from the server, the device's signature (the phone asks for a fingerprint, face or PIN),
 * and the session. No account name is typed: the passkey says whose it is. Two factors on its own, so no code follows.
 */
export function usePasskeySignIn(onSignedIn: (user: LoginUser) => void) {
  const options = useOperation('userLoginPasskeyOptions');
  const login = useOperation('userLoginPasskey');
  const [busy, setBusy] = useState(false);

  const start = async () => {
    setBusy(true);
    try {
      const asked = await options.run({});
      if (!asked.ok) return;
      // The contract's PasskeyRequestOptions is WebAuthn's PublicKeyCredentialRequestOptionsJSON, passed on as is.
      const signed = await signInOnDevice(asked.data);
      if (!signed.ok) {
        toast(signed.refusal === 'cancelled' ? t.auth.passkeyCancelled : t.auth.passkeyFailed);
        return;
      }
      // WebAuthn's AuthenticationResponseJSON is the contract's PasskeyAuthenticationResponse.
      const credential = signed.value as Schemas['PasskeyAuthenticationResponse'];
      const answer = await login.run({ body: { credential } });
      if (answer.ok) onSignedIn(answer.data);
    } finally {
      setBusy(false);
    }
  };

  return { supported: passkeysSupported(), busy, start };
}
