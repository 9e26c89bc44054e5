import { Tabs } from 'antd-mobile';
import { coinChangeForms } from '../../../screens.config';
import type { FormScreen } from '../config/types';
import { FormRenderer } from '../renderers/FormRenderer';

/** An admin adds or reduces a user's coins, with a reason: the two generated forms of the contract, side by side. */
export default function CoinChange() {
  const { add, reduce } = coinChangeForms as { add: FormScreen; reduce: FormScreen };
  return (
    <Tabs>
      <Tabs.Tab title={add.title} key="add">
        <FormRenderer screen={add} idPrefix="add" />
      </Tabs.Tab>
      <Tabs.Tab title={reduce.title} key="reduce">
        <FormRenderer screen={reduce} idPrefix="reduce" />
      </Tabs.Tab>
    </Tabs>
  );
}
