import { useRef, useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { useSearchParams } from 'react-router-dom';
import { ApiError, newIdempotencyKey } from '../../api/client';
import type { Schemas } from '../../api/operations';
import { api } from '../api';
import { confirm, toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { sessionStore, signIn } from '../state/session';
import { useStore } from '../state/store';

const fail = (error: unknown) => toast(error instanceof ApiError ? error.message : t.networkError);

/**
 * Send coins to another account. The payee is looked up first and shown masked, so the payer confirms who gets the
 * coins; one Idempotency-Key per attempt means a retry after a lost answer never pays twice.
 */
export default function TransferCoin() {
  const { user } = useStore(sessionStore);
  // An agent topping up a subordinate arrives with ?to=<account>.
  const [search] = useSearchParams();
  const [account, setAccount] = useState(search.get('to') ?? '');
  const [amount, setAmount] = useState('');
  const [payee, setPayee] = useState<Schemas['PublicProfile'] | null>(null);
  const [busy, setBusy] = useState<'lookup' | 'send' | null>(null);
  const attempt = useRef(newIdempotencyKey());
  const coin = /^[1-9]\d{0,8}$/.test(amount) ? Number(amount) : NaN;

  const edit = (setter: (v: string) => void) => (value: string) => {
    attempt.current = newIdempotencyKey();
    setter(value);
  };

  const lookUp = async () => {
    setBusy('lookup');
    setPayee(null);
    try {
      setPayee(await api.call('userGetUserInfo', { query: { userAccount: account.trim() }, quiet: true }));
    } catch (error) {
      fail(error);
    } finally {
      setBusy(null);
    }
  };

  const send = async () => {
    if (!payee || payee.userAccount.toLowerCase() !== account.trim().toLowerCase()) return toast(t.coins.checkPayeeFirst);
    if (!Number.isInteger(coin)) return toast(t.coins.amountRule);
    if (!(await confirm(t.coins.confirmTransfer(payee.maskedName, payee.userAccount, coin)))) return;
    setBusy('send');
    try {
      const result = await api.call('userTransferCoin', { body: { userAccount: payee.userAccount, coin }, quiet: true, idempotencyKey: attempt.current });
      attempt.current = newIdempotencyKey();
      toast(t.coins.transferred(result.coin), 'success');
      setAmount('');
      signIn(await api.call('userGetLogin'));
    } catch (error) {
      fail(error);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Form
      layout="vertical"
      footer={
        <Button block color="primary" size="large" loading={busy === 'send'} disabled={busy !== null || !payee || !Number.isInteger(coin)} onClick={send}>
          {t.coins.transfer}
        </Button>
      }
    >
      <Form.Item label={t.coins.balance}>
        <strong>{user?.coin ?? 0}</strong>
      </Form.Item>
      <Form.Item
        label={t.coins.payee}
        description={payee ? t.coins.payeeFound(payee.maskedName) : undefined}
        extra={
          <Button size="small" color="primary" fill="outline" loading={busy === 'lookup'} disabled={busy !== null || account.trim().length < 4} onClick={lookUp}>
            {t.coins.lookUp}
          </Button>
        }
      >
        <Input
          value={account}
          onChange={(v) => {
            setPayee(null);
            edit(setAccount)(v);
          }}
          placeholder={t.coins.payeePlaceholder}
          autoComplete="off"
        />
      </Form.Item>
      <Form.Item label={t.coins.amount}>
        <Input value={amount} onChange={edit(setAmount)} inputMode="numeric" placeholder={t.coins.amountPlaceholder} />
      </Form.Item>
    </Form>
  );
}
