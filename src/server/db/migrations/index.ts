import type { Migration } from 'kysely';
import * as accountsAndSite from './2026_11_22_0001_accounts_and_site.js';
import * as coinLedger from './2026_11_22_0002_coin_ledger.js';
import * as mall from './2026_11_22_0003_mall.js';
import * as redeemCodes from './2026_11_22_0004_redeem_codes.js';
import * as searchKeys from './2026_11_23_0005_search_keys.js';
import * as platformServices from './2026_11_23_0006_platform_services.js';
import * as sandbox from './2026_11_23_0007_sandbox.js';
import * as quotas from './2026_11_23_0008_quotas.js';
import * as aiConfig from './2026_11_23_0009_ai_config.js';
import * as batches from './2026_11_23_0010_batches.js';
import * as ledgerFunctions from './2026_11_23_0011_ledger_functions.js';
import * as flatScale from './2026_11_23_0012_flat_scale.js';
import * as dashboardIndexes from './2026_11_23_0013_dashboard_indexes.js';
import * as dashboardRollups from './2026_11_23_0014_dashboard_rollups.js';
import * as transferBatches from './2026_11_23_0015_transfer_batches.js';
import * as transferWithoutBatches from './2026_11_25_0016_transfer_without_batches.js';
import * as banPausedServices from './2026_11_25_0017_ban_paused_services.js';
import * as sessionDevices from './2026_11_26_0018_session_devices.js';
import * as twoFactor from './2026_11_26_0019_two_factor.js';
import * as passkeys from './2026_11_26_0020_passkeys.js';
import * as sessionFactors from './2026_11_27_0021_session_factors.js';
import * as payments from './2026_11_27_0022_payments.js';
import * as runSlot from './2026_11_27_0023_run_slot.js';
import * as policiesAndClosing from './2026_11_27_0024_policies_and_closing.js';
import * as paymentRecords from './2026_11_29_0025_payment_records.js';

/** Listed statically so the bundled server carries its migrations; names sort in the order they apply. */
export const migrations: Record<string, Migration> = {
  '2026_11_22_0001_accounts_and_site': accountsAndSite,
  '2026_11_22_0002_coin_ledger': coinLedger,
  '2026_11_22_0003_mall': mall,
  '2026_11_22_0004_redeem_codes': redeemCodes,
  '2026_11_23_0005_search_keys': searchKeys,
  '2026_11_23_0006_platform_services': platformServices,
  '2026_11_23_0007_sandbox': sandbox,
  '2026_11_23_0008_quotas': quotas,
  '2026_11_23_0009_ai_config': aiConfig,
  '2026_11_23_0010_batches': batches,
  '2026_11_23_0011_ledger_functions': ledgerFunctions,
  '2026_11_23_0012_flat_scale': flatScale,
  '2026_11_23_0013_dashboard_indexes': dashboardIndexes,
  '2026_11_23_0014_dashboard_rollups': dashboardRollups,
  '2026_11_23_0015_transfer_batches': transferBatches,
  '2026_11_25_0016_transfer_without_batches': transferWithoutBatches,
  '2026_11_25_0017_ban_paused_services': banPausedServices,
  '2026_11_26_0018_session_devices': sessionDevices,
  '2026_11_26_0019_two_factor': twoFactor,
  '2026_11_26_0020_passkeys': passkeys,
  '2026_11_27_0021_session_factors': sessionFactors,
  '2026_11_27_0022_payments': payments,
  '2026_11_27_0023_run_slot': runSlot,
  '2026_11_27_0024_policies_and_closing': policiesAndClosing,
  '2026_11_29_0025_payment_records': paymentRecords,
};
