import { useState } from 'react';
import { Button, List } from 'antd-mobile';
import { Link } from 'react-router-dom';
import { redeemGenerateForm } from '../../../screens.config';
import type { Schemas } from '../../api/operations';
import type { FormScreen } from '../config/types';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { FormRenderer } from '../renderers/FormRenderer';
import './mall.css';

type Batch = Schemas['RedeemBatch'];

/** The CSV of a batch: a plain link, the browser downloads it with the session cookie. */
export const exportUrl = (batchId: string) => `/api/redeem/export?batchId=${encodeURIComponent(batchId)}`;

/**
 * An admin generates a batch of redeem codes with the generated form of redeemGenerate (the expiry a choice of days),
 * then sees the batch's codes and a CSV download.
 */
export default function RedeemGenerate() {
  const [batch, setBatch] = useState<Batch | null>(null);
  const [round, setRound] = useState(0);

  if (!batch)
    return (
      <FormRenderer
        key={round}
        screen={redeemGenerateForm as FormScreen}
        onDone={(result) => setBatch(result as Batch)}
      />
    );

  return (
    <div className="app-page">
      <List mode="card" style={{ margin: '0 0 12px' }} header={w.redeem.generated(batch.codes.length)}>
        <List.Item extra={batch.batchId}>{w.redeem.batch}</List.Item>
        <List.Item extra={w.mall.coins(batch.coin)}>{w.redeem.coinEach}</List.Item>
        <List.Item extra={w.format.dateTime(batch.expiresAt)}>{w.redeem.expiresAt}</List.Item>
      </List>
      <section className="app-card" aria-label={w.redeem.codes}>
        <ul className="redeem-codes">
          {batch.codes.map((code) => (
            <li key={code}>{code}</li>
          ))}
        </ul>
      </section>
      <div className="redeem-actions">
        <a href={exportUrl(batch.batchId)} download={`${batch.batchId}.csv`}>
          <Button block color="primary">
            {w.redeem.download}
          </Button>
        </a>
        <Button
          block
          onClick={() => {
            setBatch(null);
            setRound((n) => n + 1);
          }}
        >
          {w.redeem.again}
        </Button>
        <Link to="/redeem_management">
          <Button block fill="none" color="primary">
            {w.redeem.toList}
          </Button>
        </Link>
      </div>
    </div>
  );
}
