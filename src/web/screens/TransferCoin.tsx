import { useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { Controller, useForm, useWatch } from 'react-hook-form';
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
  // An agent topping up a subordinate arrives with ?to=<account>.
  const [search] = useSearchParams();
  const { control, handleSubmit, setValue } = useForm<TransferForm>({
    defaultValues: { account: search.get('to') ?? '', amount: '' },
  });
  const [account, amount] = useWatch({ control, name: ['account', 'amount'] });
  const [payee, setPayee] = useState<Schemas['PublicProfile'] | null>(null);
  // The transfer's Idempotency-Key follows the request (payee and amount): see useOperation.
  const lookup = useOperation('userGetUserInfo');
  const transfer = useOperation('userTransferCoin');
  const busy = lookup.busy || transfer.busy;
  const coin = coinOf(amount);

  const lookUp = async () => {
    setPayee(null);
    const found = await lookup.run({ query: { userAccount: account.trim() } });
    if (found.ok) setPayee(found.data);
  };

  const send = async (values: TransferForm) => {
    const to = values.account.trim();
    if (!payee || payee.userAccount.toLowerCase() !== to.toLowerCase()) {
      toast(t.coins.checkPayeeFirst);
      return;
    }
    const sending = coinOf(values.amount)!; // the amount's rule has passed
    if (!(await confirm(t.coins.confirmTransfer(payee.maskedName, payee.userAccount, sending)))) return;
    const sent = await transfer.run({ body: { userAccount: payee.userAccount, coin: sending } });
    if (!sent.ok) return;
    toast(t.coins.transferred(sent.data.coin), 'success');
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
          disabled={busy || !payee || coin === undefined}
          onClick={handleSubmit(send, (errors) => toast(errors.amount?.message ?? t.coins.amountRule))}
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
        <Controller
          control={control}
          name="account"
          render={({ field }) => (
            <Input
              value={field.value}
              onChange={(v) => {
                setPayee(null);
                field.onChange(v);
              }}
              onBlur={field.onBlur}
              placeholder={t.coins.payeePlaceholder}
              autoComplete="off"
            />
          )}
        />
      </Form.Item>
      <Form.Item label={t.coins.amount}>
        <Controller
          control={control}
          name="amount"
          rules={{ validate: (v) => coinOf(v) !== undefined || t.coins.amountRule }}
          render={({ field }) => (
            <Input
              value={field.value}
              onChange={field.onChange}
              onBlur={field.onBlur}
              inputMode="numeric"
              placeholder={t.coins.amountPlaceholder}
            />
          )}
        />
      </Form.Item>
    </Form>
  );
}
