import { useEffect, useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { useForm } from 'react-hook-form';
import { useSearchParams } from 'react-router-dom';
import { contractRules } from '../../api/generated/rules.gen';
import type { Schemas } from '../../api/operations';
import { confirm, toast } from '../feedback';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperation } from '../operations/useOperation';
import { refreshSession } from '../state/refresh-session';
import { fitsText, wholeNumberWithin } from './rules';
import { sessionStore } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';

interface TransferForm {
  account: string;
  amount: string;
}

const coinOf = (amount: string) => wholeNumberWithin(contractRules.CoinAmount, amount);

/**
 * Send coins to another account. The payee is looked up first and shown masked, so the payer confirms who gets the
 * coins; one Idempotency-Key per attempt means a retry after a lost answer never pays twice.
 */
export default function TransferCoin() {
  const { user } = useStore(sessionStore);
  // The site's cap on one transfer (0: none), said before the payer confirms rather than refused after.
  const cap = useStore(siteStore)?.amount ?? 0;
  // An agent topping up a subordinate arrives with ?to=<account>.
  const [search] = useSearchParams();
  const { register, handleSubmit, setValue, watch } = useForm<TransferForm>({
    defaultValues: { account: search.get('to') ?? '', amount: '' },
  });
  // The UI kit's inputs answer values, not DOM events: the fields are registered by name and set on change, the form
  // library keeping their values and rules (its Controller would add 1.3 KB to the chunk /login shares).
  useEffect(() => {
    register('account');
    register('amount', { validate: (v) => coinOf(v) !== undefined || w.coins.amountRule });
  }, [register]);
  // eslint-disable-next-line react-hooks/incompatible-library -- no React Compiler here; watch re-renders this form
  const [account, amount] = watch(['account', 'amount']);
  const [payee, setPayee] = useState<Schemas['PublicProfile'] | null>(null);
  // The transfer's Idempotency-Key follows the request (payee and amount): see useOperation.
  const lookup = useOperation('userGetUserInfo');
  const transfer = useOperation('userTransferCoin');
  const busy = lookup.busy || transfer.busy;
  const coin = coinOf(amount);
  const own = user !== null && account.trim().toLowerCase() === user.userAccount.toLowerCase();
  const overCap = coin !== undefined && cap > 0 && coin > cap;

  const lookUp = async () => {
    setPayee(null);
    if (own) {
      toast(w.coins.notToSelf);
      return;
    }
    const found = await lookup.run({ query: { userAccount: account.trim() } });
    if (found.ok) setPayee(found.data);
  };

  const send = async (values: TransferForm) => {
    const to = values.account.trim();
    if (!payee || payee.userAccount.toLowerCase() !== to.toLowerCase()) {
      toast(w.coins.checkPayeeFirst);
      return;
    }
    const sending = coinOf(values.amount)!; // the amount's rule has passed
    if (cap > 0 && sending > cap) {
      toast(w.coins.overCap(cap));
      return;
    }
    if (!(await confirm(w.coins.confirmTransfer(payee.maskedName, payee.userAccount, sending)))) return;
    const sent = await transfer.run({ body: { userAccount: payee.userAccount, coin: sending } });
    if (!sent.ok) return;
    toast(w.coins.transferred(sent.data.coin), 'success');
    setValue('amount', '');
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
          disabled={busy || !payee || coin === undefined || overCap || own}
          onClick={handleSubmit(send, (errors) => toast(errors.amount?.message ?? w.coins.amountRule))}
        >
          {w.coins.transfer}
        </Button>
      }
    >
      <Form.Item label={w.coins.balance}>
        <strong>{user?.coin ?? 0}</strong>
      </Form.Item>
      <Form.Item
        label={w.coins.payee}
        description={
          own ? (
            <span role="alert" className="form-field-error">
              {w.coins.notToSelf}
            </span>
          ) : payee ? (
            w.coins.payeeFound(payee.maskedName)
          ) : undefined
        }
        extra={
          <Button
            size="small"
            color="primary"
            fill="outline"
            loading={lookup.busy}
            disabled={busy || own || !fitsText(contractRules.UserAccount, account.trim())}
            onClick={lookUp}
          >
            {w.coins.lookUp}
          </Button>
        }
      >
        <Input
          value={account}
          onChange={(v) => {
            setPayee(null);
            setValue('account', v);
          }}
          placeholder={w.coins.payeePlaceholder}
          autoComplete="off"
        />
      </Form.Item>
      <Form.Item
        label={w.coins.amount}
        description={
          overCap ? (
            <span role="alert" className="form-field-error">
              {w.coins.overCap(cap)}
            </span>
          ) : (
            w.coins.capHint(cap)
          )
        }
      >
        <Input
          value={amount}
          onChange={(v) => setValue('amount', v)}
          inputMode="numeric"
          placeholder={w.coins.amountPlaceholder}
        />
      </Form.Item>
    </Form>
  );
}
