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

/** What is wrong with the amount typed, said by the field: its form, the balance it would need, the cap. */
function amountProblemOf(text: string, coin: number | undefined, balance: number, cap: number): string | null {
  if (text === '') return null;
  if (!/^\d+$/.test(text)) return w.coins.amountRule;
  const n = Number(text);
  if (n === 0) return w.coins.atLeastOne;
  if (n > balance) return w.coins.overBalance(balance);
  if (cap > 0 && n > cap) return w.coins.overCap(cap);
  // Within the balance but past what the contract takes in one transfer.
  return coin === undefined ? w.coins.amountRule : null;
}

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
  const balance = user?.coin ?? 0;
  const own = user !== null && account.trim().toLowerCase() === user.userAccount.toLowerCase();
  // The amount checked against what the screen knows (the rule, the balance, the cap) as it is typed, by the field.
  const amountProblem = amountProblemOf(amount, coin, balance, cap);
  const canLookUp = !own && fitsText(contractRules.UserAccount, account.trim());
  // What the most the payer can send is: the balance, or the cap when it is lower.
  const most = cap > 0 ? Math.min(balance, cap) : balance;

  const lookUp = async (who = account) => {
    setPayee(null);
    if (own) {
      toast(w.coins.notToSelf);
      return;
    }
    const found = await lookup.run({ query: { userAccount: who.trim() } });
    if (found.ok) setPayee(found.data);
  };

  // Arrived with ?to=<account> (an agent topping up a subordinate): who it is is looked up at once.
  const prefilled = search.get('to') ?? '';
  useEffect(() => {
    if (fitsText(contractRules.UserAccount, prefilled.trim())) void lookUp(prefilled);
    // Once, for the account the link named.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [prefilled]);

  // Why 转账 cannot be tapped yet, said under it.
  const waiting = own
    ? w.coins.notToSelf
    : !payee
      ? lookup.busy
        ? w.coins.lookingUp
        : account.trim() === ''
          ? w.coins.payeeFirst
          : w.coins.checkPayeeFirst
      : amount === ''
        ? w.coins.amountFirst
        : (amountProblem ?? null);

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
        <>
          <Button
            block
            color="primary"
            size="large"
            loading={transfer.busy}
            disabled={busy || waiting !== null}
            aria-describedby={waiting ? 'transfer-why' : undefined}
            onClick={handleSubmit(send, (errors) => toast(errors.amount?.message ?? w.coins.amountRule))}
          >
            {w.coins.transfer}
          </Button>
          {waiting && !busy && (
            <p id="transfer-why" className="why-disabled">
              {waiting}
            </p>
          )}
        </>
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
            disabled={busy || !canLookUp}
            onClick={() => void lookUp()}
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
          // Leaving the field looks the payee up by itself; 查询 stays for a second look.
          onBlur={() => {
            if (canLookUp && !payee && !lookup.busy) void lookUp();
          }}
          placeholder={w.coins.payeePlaceholder}
          autoComplete="off"
        />
      </Form.Item>
      <Form.Item
        label={w.coins.amount}
        description={
          amountProblem ? (
            <span role="alert" className="form-field-error">
              {amountProblem}
            </span>
          ) : (
            w.coins.capHint(cap)
          )
        }
        extra={
          <Button
            size="small"
            color="primary"
            fill="outline"
            disabled={most < 1}
            aria-label={w.coins.allOf(most)}
            onClick={() => setValue('amount', String(most))}
          >
            {w.coins.all}
          </Button>
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
