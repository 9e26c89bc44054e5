import type { ArrayFieldItemTemplateProps, ArrayFieldTemplateProps, IconButtonProps, TemplatesType } from '@rjsf/utils';
import { Button } from 'antd-mobile';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';

// An array field of objects (a platform's course list) in the antd-mobile theme: each item a bordered block of its
// fields with a 删除 under them, then 添加一项. rjsf's own templates lay items out on a CSS framework's grid with its
// icon fonts, which this app does not load. Items keep their order: no move or copy buttons.

function AddButton({ onClick, disabled }: IconButtonProps) {
  return (
    <Button size="small" color="primary" fill="outline" onClick={onClick} disabled={disabled}>
      {w.form.addItem}
    </Button>
  );
}

function RemoveButton({ onClick, disabled }: IconButtonProps) {
  return (
    <Button size="mini" color="danger" fill="none" onClick={onClick} disabled={disabled}>
      {w.form.removeItem}
    </Button>
  );
}

const Nothing = () => null;

function ArrayFieldTemplate({ items, canAdd, onAddClick, disabled, readonly, registry }: ArrayFieldTemplateProps) {
  return (
    <div className="form-array">
      {items}
      {canAdd ? <AddButton onClick={onAddClick} disabled={disabled || readonly} registry={registry} /> : null}
    </div>
  );
}

function ArrayFieldItemTemplate(props: ArrayFieldItemTemplateProps) {
  const { children, buttonsProps, hasToolbar, disabled, readonly, registry } = props;
  return (
    <div className="form-array-item">
      {children}
      {hasToolbar && buttonsProps.hasRemove ? (
        <div className="form-array-item-tools">
          <RemoveButton onClick={buttonsProps.onRemoveItem} disabled={disabled || readonly} registry={registry} />
        </div>
      ) : null}
    </div>
  );
}

export const arrayTemplates: Partial<Omit<TemplatesType, 'ButtonTemplates'>> = {
  ArrayFieldTemplate,
  ArrayFieldItemTemplate,
  // The field's own label already names the array.
  ArrayFieldTitleTemplate: Nothing,
};

export const buttonTemplates: Partial<TemplatesType['ButtonTemplates']> = {
  AddButton,
  RemoveButton,
  MoveUpButton: Nothing,
  MoveDownButton: Nothing,
  CopyButton: Nothing,
};
