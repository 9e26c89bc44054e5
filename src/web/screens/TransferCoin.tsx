import { useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { useSearchParams } from 'react-router-dom';
import { contractRules } from '../../api/generated/rules.gen';
import type { Schemas } from '../../api/operations';
import { confirm, toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { useOperation } from '../operations/useOperation';
import { refreshSession } from '../state/refresh-session';
import { fitsText, wholeNumberWithin } from './rules';
import { sessionStore } from '../state/session';
import { useStore } from '../state/store';

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
  // The transfer's Idempotency-Key follows the request (payee and amount): see useOperation.
  const lookup = useOperation('userGetUserInfo');
  const transfer = useOperation('userTransferCoin');
  const busy = lookup.busy || transfer.busy;
  const coin = wholeNumberWithin(contractRules.CoinAmount, amount) ?? NaN;

  const lookUp = async () => {
    setPayee(null);
    const found = await lookup.run({ query: { userAccount: account.trim() } });
    if (found.ok) setPayee(found.data);
  };

  const send = async () => {
    if (!payee || payee.userAccount.toLowerCase() !== account.trim().toLowerCase()) {
      toast(t.coins.checkPayeeFirst);
      return;
    }
    if (!Number.isInteger(coin)) {
      toast(t.coins.amountRule);
      return;
    }
    if (!(await confirm(t.coins.confirmTransfer(payee.maskedName, payee.userAccount, coin)))) return;
    const sent = await transfer.run({ body: { userAccount: payee.userAccount, coin } });
    if (!sent.ok) return;
    toast(t.coins.transferred(sent.data.coin), 'success');
    setAmount('');
    await refreshSession();
  };

  return (
    <Form
      layout="vertical"
      footer={
        <Button
          block
          color="primary"
          size="large"
          loading={transfer.busy}
          disabled={busy || !payee || !Number.isInteger(coin)}
          onClick={send}
        >
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
          <Button
            size="small"
            color="primary"
            fill="outline"
            loading={lookup.busy}
            disabled={busy || !fitsText(contractRules.UserAccount, account.trim())}
            onClick={lookUp}
          >
            {t.coins.lookUp}
          </Button>
        }
      >
        <Input
          value={account}
          onChange={(v) => {
            setPayee(null);
            setAccount(v);
          }}
          placeholder={t.coins.payeePlaceholder}
          autoComplete="off"
        />
      </Form.Item>
      <Form.Item label={t.coins.amount}>
        <Input value={amount} onChange={setAmount} inputMode="numeric" placeholder={t.coins.amountPlaceholder} />
      </Form.Item>
    </Form>
  );
}
