import type { OperationInput } from '../../api/client';
import type { OperationId, RequestBody, ResponseData, Schemas } from '../../api/operations';
import type { Role } from '../../api/generated/operations.gen';
import type { MenuIconName, Tint } from '../app/menu-icons';

// The screen map's vocabulary. A screen is a typed union keyed on `kind`, so the type checker, not the runtime,
// catches a wrong operationId, parameter or field in screens.config.ts.

export type SignedInRole = Exclude<Role, 'visitor'>;

/**
 * The kinds of change a screen can follow on the event stream (openapi.yaml `LiveEvent`): when one arrives the screen
 * reads again, and while the stream is unavailable it reads on a timer instead.
 */
export type LiveKind = Exclude<Schemas['LiveEventKind'], 'ready' | 'resync' | 'signedOut'>;
/** `public`: anyone (login, register, 500); otherwise the roles that may open the screen. */
export type Access = 'public' | readonly SignedInRole[];

/**
 * `full`: header, tab bar, watermark and notice bar; `bare`: none of them (login, register); `document`: a text to
 * read (用户协议), opened from /register as from 我的: the header and its back arrow, nothing else; `error`: an error page
 * (/500): header and notice bar, but no tab bar and no announcement dialog, whose links and text lead nowhere there (the
 * page offers its own way on). Not-found and no-permission pages are drawn the same way.
 */
export type Chrome = 'full' | 'bare' | 'error' | 'document';

interface ScreenBase {
  path: string;
  title: string;
  access: Access;
  chrome?: Chrome;
  /** Fixed notice-bar text; without it the bar shows the site's noticeBar. */
  notice?: string;
  /** The header's back arrow; shown on every framed page but home. */
  back?: boolean;
  /** The header's right-hand action. */
  headerRight?: 'logout';
  /** Listed as an entry on home and my page, in this group, for the roles in `access`. */
  menu?: MenuGroup;
  /** The entry's icon on home and my page (an antd-mobile-icons name from app/menu-icons.ts) and its tint. */
  icon?: MenuEntryIcon;
  /**
   * A line under the header naming whose record the screen is about (an admin on another user's statement or
   * password), read from the server by the URL's id: a line from the URL itself could name the wrong person.
   */
  subject?: Subject;
  /** A public screen a signed-in user has no use for (login): they go to its `?redirect=`, or home. */
  signedInGoesOn?: boolean;
  /**
   * A public screen with the frame (/500): asks quietly who is signed in, so a signed-in user keeps their watermark
   * and the bubble there too; a visitor, or no answer (the server down), just sees the screen.
   */
  framesSignedInUser?: boolean;
  /**
   * The list the record of this edit form or detail page is picked from. Opened without its record (a form's `fixed`
   * value the URL leaves empty or out of range; a detail page's `?id=` missing or not an id), the screen says so
   * plainly and links back to this list (home without it) instead of loading nothing.
   */
  recordOf?: string;
}

export type { MenuIconName, Tint };
export interface MenuEntryIcon {
  name: MenuIconName;
  tint: Tint;
}

/**
 * Sections of entries on home and my page. The admin's areas are four sections (users and coins, mall and orders,
 * platforms, system) after `admin`, the overview, so home is not one wall of tiles; which sections each page shows,
 * and in what order, is `menuLayout` in screens.config.ts.
 */
export type MenuGroup =
  'service' | 'coins' | 'agent' | 'admin' | 'adminUsers' | 'adminMall' | 'adminPlatform' | 'adminSystem' | 'account';

/** Reads the record a screen is about and says whose it is; `args` answers null when the URL names nobody. */
export type Subject<P extends OperationId = OperationId> = {
  [K in P]: {
    operation: K;
    args: (search: URLSearchParams) => OperationArgs<K> | null;
    text: (data: ResponseData<K>) => string;
  };
}[P];

/** Operations that answer a page `{records, total, current, pageSize}`. */
export type PageOperation = {
  [K in OperationId]: ResponseData<K> extends { records: unknown[]; total: number } ? K : never;
}[OperationId];
export type RowOf<K extends PageOperation> = ResponseData<K> extends { records: (infer R)[] } ? R : never;

/** What a row action, a detail or a form's load sends: the operation's query or body, as the client takes them. */
export type OperationArgs<K extends OperationId> = OperationInput<K>;

/** A confirmation's buttons: the one that goes on, the one that backs out. */
export interface ConfirmLabels {
  ok: string;
  cancel: string;
}

export type RowAction<R> =
  | {
      label: string;
      color?: 'primary' | 'warning' | 'danger' | 'light' | 'success';
      /** Shown only where this holds for the row (e.g. ban for active users, unban for banned ones). */
      when?: (row: R) => boolean;
      /** Asked before the call; the row is there to name it. */
      confirm?: (row: R) => string;
      /**
       * The question's two buttons in words when 确定/取消 would be unclear (cancelling an order: 取消 would read as
       * "do it"): `ok` runs the action, `cancel` leaves it.
       */
      confirmLabels?: ConfirmLabels;
      done?: string;
      call: ActionCall<R>;
    }
  | {
      label: string;
      color?: 'primary' | 'warning' | 'danger' | 'light' | 'success';
      when?: (row: R) => boolean;
      to: (row: R) => string;
    }
  | {
      label: string;
      color?: 'primary' | 'warning' | 'danger' | 'light' | 'success';
      when?: (row: R) => boolean;
      /** Copies this text of the row (an order number) to the clipboard. */
      copy: (row: R) => string;
    }
  | {
      label: string;
      color?: 'primary' | 'warning' | 'danger' | 'light' | 'success';
      when?: (row: R) => boolean;
      /** Opens a dialog of choices read from an operation (a payment method), then calls with the one picked. */
      choose: ChoiceAction<R>;
    };

/**
 * A row action that asks the user to pick first (去支付: a payment method): a dialog naming the row, the choices
 * `from` an operation answers (read when it opens; `empty` says what to do when there are none), and `call` made with
 * the row and the value picked. Its errors show in the dialog, next to the choice. After the call, `leave` names an
 * address the phone goes on to (a payment cashier, outside the app) while the dialog shows `busy`; without it the
 * dialog closes, says `done` and the rows read again. Written with `choiceAction()`, which checks both operations.
 */
export interface ChoiceSpec<R, Q extends OperationId, V, P extends OperationId> {
  title: (row: R) => string;
  /** Lines under the title that say what the row is about (a package, its price). */
  lines?: (row: R) => readonly string[];
  /** What the choices are of, above them (付款方式). */
  legend: string;
  from: {
    operation: Q;
    args: OperationArgs<Q>;
    choices: (data: ResponseData<Q>) => readonly { label: string; value: V }[];
    /** A line under the choices worded from the same answer and the row (when an unpaid order closes). */
    note?: (data: ResponseData<Q>, row: R) => string | null;
  };
  empty: string;
  /** The button that makes the call, and what it says while the call (and the leaving) is under way. */
  ok: string;
  busy: string;
  call: { operation: P; args: (row: R, value: V) => OperationArgs<P> };
  leave?: (data: ResponseData<P>) => string;
  done?: string;
}
/* eslint-disable @typescript-eslint/no-explicit-any -- checked by choiceAction(); the row action holds it erased */
export type ChoiceAction<R> = ChoiceSpec<R, any, any, any>;
/* eslint-enable @typescript-eslint/no-explicit-any */
/** A choice row action's spec, its choices and its call each checked against their own operation. */
export const choiceAction = <R, Q extends OperationId, V, P extends OperationId>(
  spec: ChoiceSpec<R, Q, V, P>,
): ChoiceAction<R> => spec;

/**
 * Ties an operation to the arguments built from a row, checked against that operation's contract. Indexed by K (a
 * correlated union), so a renderer generic in K sends `args(row)` to `operation` without a cast.
 */
export type ActionCall<R, K extends OperationId = OperationId> = {
  [P in K]: {
    operation: P;
    args: (row: R) => OperationArgs<P>;
    /**
     * What the answer said, shown in a dialog instead of the `done` toast (补单: what each payment channel answered),
     * for an outcome a toast would lose.
     */
    show?: (data: ResponseData<P>, row: R) => { title: string; content: string };
    /**
     * A refusal shown in a dialog under this title instead of a toast (a gateway's refusal of a refund, with what to do
     * next): for refusals too long, or too important, to vanish.
     */
    refusalTitle?: string;
  };
}[K];

/** A state shown as a coloured tag that also says it in words (colour is never the only signal). */
export type Tone = 'default' | 'primary' | 'success' | 'warning' | 'danger';
export interface TagValue {
  text: string;
  tone: Tone;
}

/** How a list row reads: its title, a line under it, a short text on the right and an optional state tag. */
export interface ListItem<R> {
  title: (row: R) => string;
  description?: (row: R) => string;
  extra?: (row: R) => string;
  /** The extra's colour (an amount gained or spent); the text itself must say it too (a sign), never colour alone. */
  extraTone?: (row: R) => Tone;
  /** The row's state as a tag, or several (an order's state and 已关单后付款), each in words. */
  tag?: (row: R) => TagValue | readonly TagValue[] | null;
}

/** A job's progress, shown as a bar with done and failed out of total. */
export interface Progress {
  done: number;
  failed: number;
  total: number;
}

/**
 * Choices of a list filter read from a paged operation's first page (the payment channels), each row one choice; shown
 * after the chip's fixed options, and left out when that read fails (the fixed ones stay usable).
 */
export type ChipSource = {
  [P in PageOperation]: {
    operation: P;
    /** The query or body of the read, beside the page (current 1, pageSize 100). */
    args?: Partial<RequestBody<P>>;
    choice: (row: RowOf<P>) => { value: string | number; label: string };
  };
}[PageOperation];

/** A row of one-tap choices for one filter of the list's query (全部, then the options, then `from`'s). */
export interface ListChip {
  field: string;
  label: string;
  /** Fixed choices by value, in this order; a value of digits is sent as a number, `true`/`false` as booleans. */
  options: Readonly<Record<string, string>> | readonly { value: string; label: string }[];
  from?: ChipSource;
}

/** An action above a list (not tied to a row): a call or a link. */
export type ToolbarAction =
  | {
      label: string;
      color?: 'primary' | 'warning' | 'danger' | 'default';
      confirm?: string;
      done?: string;
      call: ActionCall<void>;
    }
  | { label: string; color?: 'primary' | 'warning' | 'danger' | 'default'; to: string };

/**
 * How a list asks for its next page: by page number, or (`cursor`) with the `nextCursor` its last page handed out,
 * for operations that offer it (keyset paging: as fast deep down as on top, nothing repeated or skipped while new
 * rows arrive on top).
 */
export type Paging = 'pages' | 'cursor';

export interface ListScreen<K extends PageOperation = PageOperation> extends ScreenBase {
  kind: 'list';
  operation: K;
  /** Whether the list takes a search box (the operation must accept searchText). */
  search?: boolean;
  /** What the search box says while empty, when 输入关键字搜索 would promise more than it finds (订单号 only). */
  searchPlaceholder?: string;
  sortFields?: readonly { field: string; label: string }[];
  // NoInfer: the operation alone decides K; the row callbacks are then checked against its rows.
  item: ListItem<RowOf<NoInfer<K>>>;
  rowActions?: readonly RowAction<RowOf<NoInfer<K>>>[];
  /** Row actions the swipe shows at most (3 by default, what fits a phone); the rest open from '更多'. */
  swipeMax?: number;
  /**
   * One-tap filters above the list: a field of the operation's query and the words for its values, in this order;
   * `from` adds choices read from another list (an order's channel: one per payment channel) after them.
   */
  chips?: readonly ListChip[];
  /**
   * Filters that are on or off (只看已关单后付款): one pressed button each; on, the operation's query carries the field
   * as `true`, off it leaves the field out.
   */
  switches?: readonly { field: string; label: string }[];

  /** Rows that stand out (unread notices): bold, with a dot. */
  highlight?: (row: RowOf<NoInfer<K>>) => boolean;
  /**
   * What a tap on a row does instead of offering the row actions (these stay on the swipe): calls the operation (e.g.
   * marks the notice read) and shows the row in a dialog.
   */
  open?: {
    call: ActionCall<RowOf<NoInfer<K>>>;
    dialog: (row: RowOf<NoInfer<K>>) => { title: string; content: string };
  };
  /** A progress bar under each row (batch tasks). */
  progress?: (row: RowOf<NoInfer<K>>) => Progress;
  /** Changes that make the list read its pages again (a task's progress, a new order), as they happen. */
  liveOn?: readonly LiveKind[];
  /**
   * Without the event stream (a proxy that buffers it): reloads every `everyMs` while some row still `while`s (a job
   * running). With it, `liveOn` alone keeps the list fresh.
   */
  poll?: { everyMs: number; while?: (row: RowOf<NoInfer<K>>) => boolean };
  /** Actions above the list: calls (e.g. mark all read) and links (e.g. to a start form). */
  toolbar?: readonly ToolbarAction[];
  /** Told after any call from this list succeeded (e.g. the unread count refreshes): a behaviour of the web app. */
  onChange?: Behaviour;
  /** A link above the list, e.g. to the add form. */
  addLink?: { label: string; to: string };
  /** URL parameters passed on to the operation as filters (e.g. an admin's ?userId= on a statement). */
  urlFilters?: readonly string[];
  /** A file download above the list (a CSV export), given the current URL parameters. */
  download?: { label: string; href: (search: URLSearchParams) => string };
  /** How the next page is asked for (default `pages`); `cursor` needs an operation answering `nextCursor`. */
  paging?: Paging;
  empty?: string;
}

/** Operations with a JSON body: what a generated form can submit. */
export type FormOperation = { [K in OperationId]: RequestBody<K> extends undefined ? never : K }[OperationId];

/**
 * Reads the record to edit; its answer fills the form where field names match. `args` and `pick` are checked against
 * the load's own operation (a union over operations, told apart by `operation`).
 */
export type FormLoad<K extends FormOperation, L extends OperationId = OperationId> = {
  [P in L]: {
    operation: P;
    args: (search: URLSearchParams) => OperationArgs<P>;
    pick?: (data: ResponseData<P>) => Partial<RequestBody<K>>;
    /**
     * A text instead of the form when the record says it cannot be saved (a platform off shelf): told before the user
     * fills anything in, as the record's own page tells it.
     */
    unavailable?: (data: ResponseData<P>) => { title: string; description: string } | null;
    /** The screen's title worded from the record once read (开通… for a first setup, 修改… after). */
    title?: (data: ResponseData<P>) => string;
    /**
     * The fields this record may change, when fewer than the screen's `fields` (the built-in sandbox channel: only
     * its methods and switch): the others are neither shown nor sent. Null or absent shows them all.
     */
    fields?: (data: ResponseData<P>) => readonly (keyof RequestBody<K> & string)[] | null;
  };
}[L];

/**
 * A question asked before a form is sent (a destructive batch): `args` reads what the submission touches (the
 * platform, by the id just picked) with its own operation, and `text` names it in the question, with numbers. A null
 * text asks nothing: the form is sent as it is (only some submissions need the question).
 */
export type FormConfirm<K extends FormOperation, L extends OperationId = OperationId> =
  FormConfirmFromForm<K> | FormConfirmWithRead<K, L>;

/** A question worded from what the form itself holds (how many lines an uploaded list has): nothing is read first. */
export interface FormConfirmFromForm<K extends FormOperation> {
  text: (body: RequestBody<K>) => string | null;
  labels?: ConfirmLabels;
}

type FormConfirmWithRead<K extends FormOperation, L extends OperationId> = {
  [P in L]: {
    operation: P;
    args: (body: RequestBody<K>) => OperationArgs<P>;
    text: (body: RequestBody<K>, data: ResponseData<P>) => string | null;
    /**
     * Fields the body carries once the question is answered yes (the server's own "I was asked" flag, such as
     * confirmPublic): never sent without the question.
     */
    sets?: Partial<RequestBody<K>>;
    /** The question's two buttons in words when 确定/取消 would be unclear. */
    labels?: ConfirmLabels;
  };
}[L];

/** Widgets a form screen may pick for a field, beyond the ones its type picks. */
export type FormWidget = 'expiry' | 'yuan' | 'password' | 'csvFile' | 'platform';

/**
 * A button by a field that asks an operation for a new value of it (AI 润色), shown to the user to accept or discard;
 * nothing changes until they accept. `args` builds the call from the field's current text; `pick` reads the answer.
 */
export type FieldAction<P extends OperationId = OperationId> = {
  [K in P]: {
    label: string;
    operation: K;
    args: (text: string) => OperationArgs<K>;
    pick: (data: ResponseData<K>) => { value: string | null; message: string };
  };
}[P];

/** A button under the form that calls an operation on its own (test connection) and shows what it answered. */
export type FormAction<P extends OperationId = OperationId> = {
  [K in P]: {
    label: string;
    operation: K;
    args: () => OperationArgs<K>;
    show: (data: ResponseData<K>) => { title: string; content: string };
  };
}[P];

/** Component schemas of openapi.yaml that a platform kind may name as its settings (one per family of platforms). */
export type SettingsSchemaName = Extract<keyof Schemas, `${string}Settings`>;

/** A choice among fixed values for a field whose schema has no enum (a weekday, a platform kind). */
export type Choice = { value: string | number; label: string };

export interface FormScreen<K extends FormOperation = FormOperation> extends ScreenBase {
  kind: 'form';
  submit: K;
  /**
   * The form is drawn from this settings schema instead of the body, and its values are sent as the body's `into`
   * field (a service's settings); the load's other fields (the platform's id) go with them.
   */
  settings?: { schema: SettingsSchemaName; into: keyof RequestBody<K> & string };
  /** Fields picked from fixed values (one, or several for an array field), by the shown schema's field names. */
  choices?: Readonly<Record<string, readonly Choice[]>>;
  /** Fields shown, in order; the others are hidden. Typed by the operation's body. */
  fields?: readonly (keyof RequestBody<K> & string)[];
  /** Multi-line fields. */
  textareas?: readonly (keyof RequestBody<K> & string)[];
  /**
   * What a typed field shows while empty when 请输入… would not say enough: an example or where to find the value (a
   * gateway's address, the merchant id from its backend).
   */
  placeholders?: Partial<Record<keyof RequestBody<K> & string, string>>;
  /** Display labels of this form's enum values, by field; without them the app-wide labels (w.form.enumLabels) apply. */
  enumLabels?: Partial<Record<keyof RequestBody<K> & string, Readonly<Record<string, string>>>>;
  /**
   * A widget other than the one the field's type picks: `expiry` (a choice of days, sent as a timestamp), `yuan` (a
   * price in fen entered in yuan), `password` (a secret the server never shows: masked, blank keeps the saved one),
   * `platform` (a platform picked by name from the platforms list, sent as its id). A time of day (the contract's
   * TimeOfDay) needs nothing here: every such field, nested ones too, is picked on a wheel.
   */
  widgets?: Partial<Record<keyof RequestBody<K> & string, FormWidget>>;
  /** Values a new form starts with (shown and editable); a loaded record and `fixed` override them. */
  initial?: Partial<RequestBody<K>>;
  /** Fields filled from the URL and not shown (e.g. the id being edited). */
  fixed?: (search: URLSearchParams) => Partial<RequestBody<K>>;
  load?: FormLoad<K>;
  /** Asked (with what it touches, read from the server) before sending; cancelling sends nothing. */
  confirm?: FormConfirm<K>;
  /** Buttons by fields that suggest a new value (AI 润色), by field. */
  fieldActions?: Partial<Record<keyof RequestBody<K> & string, FieldAction>>;
  /** Buttons under the submit button that call another operation and show its answer (测试连接). */
  actions?: readonly FormAction[];
  submitLabel?: string;
  done?: string;
  /**
   * Where to go after success: a path (back to it when the admin came from there, else it replaces the form), a path
   * built from the operation's answer (the account just changed), or `stay` on the form with the toast. Without it:
   * back where the admin came from, or, on a deep link, the record's list (`recordOf`) or home.
   */
  after?: `/${string}` | 'stay' | ((result: ResponseData<K>) => `/${string}`);
  /**
   * Told after a successful submit, before leaving the form (e.g. the frame reads the site information again): a
   * behaviour of the web app.
   */
  onSaved?: Behaviour;
  /**
   * A step on the device after the form is filled and before it is sent (the phone's authenticator making a passkey):
   * the web app runs it (src/web/app/ceremonies.ts) and sends its result as the body field `fills`, which the form
   * neither shows nor validates. Cancelled on the device, nothing is sent.
   */
  ceremony?: { run: Ceremony; fills: keyof RequestBody<K> & string };
  /**
   * Paragraphs above the fields saying what the form does before anyone fills it in (注销账号: what is forfeited,
   * what is kept, how to undo it), for a form whose consequences a label cannot carry.
   */
  intro?: readonly string[];
  /**
   * A refusal that lists line-by-line problems (an uploaded CSV's bad lines: the 40000 answer's `problems`) shows
   * them under this field instead of a toast: its sentence, the first 100 with the total, and 复制全部 for every one.
   * Changing the field (another file chosen) clears the list. Without it, such a list shows above the submit button.
   */
  problems?: { field: keyof RequestBody<K> & string };
}

export interface DetailField<Key extends string = string> {
  key: Key;
  label: string;
  /** `time`: an epoch-millisecond value shown as a date and time. */
  format?: 'time' | 'text';
  /** Words for coded values (roles, statuses). */
  labels?: Readonly<Record<string, string>>;
}

export interface DetailScreen<K extends OperationId = OperationId> extends ScreenBase {
  kind: 'detail';
  operation: K;
  args: (search: URLSearchParams) => OperationArgs<NoInfer<K>>;
  /** The URL parameter naming the record shown (`id` unless said); without a usable one, see `recordOf`. */
  recordParam?: string;
  /** Fields of the operation's answer, by name: a name it does not answer fails the type check. */
  fields: readonly DetailField<keyof ResponseData<NoInfer<K>> & string>[];
  /** A progress bar above the fields. */
  progress?: (data: ResponseData<NoInfer<K>>) => Progress;
  /** Changes that make the record read again, as they happen. */
  liveOn?: readonly LiveKind[];
  /** Without the event stream: reads the record again every `everyMs` while `while` holds for it (a job running). */
  poll?: { everyMs: number; while: (data: ResponseData<NoInfer<K>>) => boolean };
  /** Buttons under the fields: calls on the record (cancel) or links; shown by `when` and the contract's roles. */
  actions?: readonly RowAction<ResponseData<NoInfer<K>>>[];
  /** File downloads (CSV) offered for the record. */
  downloads?: readonly {
    label: string;
    href: (data: ResponseData<NoInfer<K>>) => string;
    when?: (data: ResponseData<NoInfer<K>>) => boolean;
  }[];
  /** A list composed under the record (amis' `body`): e.g. a task's failed items, filtered by the URL. */
  below?: Screen;
  /**
   * Words in place of `below` when the record already says what that list would (a task finished with no failure):
   * a plain success line instead of an empty list's illustration. Null or empty keeps the list.
   */
  instead?: (data: ResponseData<NoInfer<K>>) => string | null;
}

/**
 * The hand screens, by name. The map names one and the web app registers each (src/web/app/custom-screens.ts, a
 * record over these names, so a name without a screen fails the type check); the map imports no screen code.
 */
export type CustomScreenName =
  | 'login'
  | 'register'
  | 'serverError'
  | 'home'
  | 'about'
  | 'mall'
  | 'transferCoin'
  | 'bindEmail'
  | 'coinChange'
  | 'redeemGenerate'
  | 'twoFactor'
  | 'cashier'
  | 'payResult';

/**
 * What the web app does when a screen tells it something happened (src/web/app/behaviours.ts registers each), named
 * so the map imports no state module: the site information changed, the unread count may have.
 */
export type Behaviour = 'siteChanged' | 'refreshUnread' | 'signedOut';

/** A step the device takes before a form is sent (FormScreen.ceremony); src/web/app/ceremonies.ts registers each. */
export type Ceremony = 'passkeyRegistration';

export interface CustomScreen extends ScreenBase {
  kind: 'custom';
  screen: CustomScreenName;
}

/** A route whose operations are not in openapi.yaml yet: the frame and a plain '功能即将开放'. */
export interface PendingScreen extends ScreenBase {
  kind: 'pending';
}

/** A value of a loaded record shown on a detail part: computed from the record, so a wrong field fails the type check. */
export interface ShowField<D> {
  label: string;
  value: (data: D) => string;
  tag?: (data: D) => TagValue | null;
  /** A line under the label saying why the value or tag is what it is (a check's finding, what to do about it). */
  note?: (data: D) => string | null;
}

/** The loaded record as a card: a heading, label/value rows and buttons (the same actions as a list's rows). */
export interface DetailPart<D> {
  type: 'detail';
  title?: (data: D) => string;
  /** A line under the heading (a hint such as 'set up first'). */
  note?: (data: D) => string | null;
  fields: readonly ShowField<D>[];
  actions?: readonly RowAction<D>[];
}

/** Operations that take no input and answer a plain array (no paging): a cards part shows them all. */
export type ArrayOperation = {
  [K in OperationId]: ResponseData<K> extends readonly unknown[]
    ? Record<string, never> extends OperationInput<K>
      ? K
      : never
    : never;
}[OperationId];
type ItemOf<K extends ArrayOperation> = ResponseData<K> extends readonly (infer R)[] ? R : never;

/** A paged operation as an infinite list inside a composed screen, filtered by the screen's record. */
export type ListPart<D> = {
  [L in PageOperation]: {
    type: 'list';
    title?: string;
    operation: L;
    /** The query's filters, from the record (the service's id); a null leaves the list out. */
    filter?: (data: D) => Partial<RequestBody<L>> | null;
    item: ListItem<RowOf<L>>;
    rowActions?: readonly RowAction<RowOf<L>>[];
    /**
     * Rows still under way (a run due or running): without the event stream, the list looks again every few seconds
     * while one shows; with it, the screen's `liveOn` events do.
     */
    live?: (row: RowOf<L>) => boolean;
    empty?: string;
  };
}[PageOperation];

/** An operation answering an array, one card per item, each a link. */
export type CardsPart = {
  [C in ArrayOperation]: {
    type: 'cards';
    title?: string;
    operation: C;
    card: {
      title: (item: ItemOf<C>) => string;
      tag?: (item: ItemOf<C>) => TagValue | null;
      lines?: (item: ItemOf<C>) => readonly string[];
      to: (item: ItemOf<C>) => string;
    };
    /** Shown when there are no items. */
    empty: string;
  };
}[ArrayOperation];

/** Operations that take no input and answer one record (not an array): a stats part shows its figures. */
export type RecordOperation = {
  [K in OperationId]: ResponseData<K> extends readonly unknown[]
    ? never
    : ResponseData<K> extends object
      ? Record<string, never> extends OperationInput<K>
        ? K
        : never
      : never;
}[OperationId];

/** One figure on a stat card: its words, its value as text, and an optional state tag (words, not colour alone). */
export interface Stat<D> {
  label: string;
  value: (data: D) => string;
  tag?: (data: D) => TagValue | null;
}

/** An operation's record as groups of stat cards (a dashboard's figures), each group under its heading. */
export type StatsPart = {
  [S in RecordOperation]: {
    type: 'stats';
    operation: S;
    groups: readonly { title: string; stats: readonly Stat<ResponseData<S>>[] }[];
    /** A line under the cards (the time zone the figures are counted in). */
    note?: (data: ResponseData<S>) => string;
  };
}[RecordOperation];

/** Operations answering `{series: [...]}`, one item per point of an x axis (a day): what a chart part draws. */
export type SeriesOperation = {
  [K in OperationId]: ResponseData<K> extends { series: readonly unknown[] } ? K : never;
}[OperationId];
type SeriesRow<K extends SeriesOperation> = ResponseData<K> extends { series: readonly (infer R)[] } ? R : never;

/** `bar`: bars side by side; `stack`: bars stacked (parts of one total); `line`: lines. */
export type ChartKind = 'bar' | 'stack' | 'line';

/**
 * A series' fixed meaning, drawn in the same colour in light and dark mode whatever its place in the chart:
 * `success` green, `danger` red, `neutral` grey. A series without one takes the palette's colour of its place.
 */
export type ChartTone = 'success' | 'danger' | 'neutral';

/** One chart: its kind and the numbers of each row it draws, each series named in words. */
export interface ChartSpec<R> {
  title: string;
  kind: ChartKind;
  series: readonly { label: string; value: (row: R) => number; tone?: ChartTone }[];
  /** How a value reads in the tapped day's figures and on the axis (yuan for fen). */
  format?: (value: number) => string;
}

/**
 * Charts over a chosen range (7, 30, 90 days), drawn from one operation: a range switch above them, a tap on a chart
 * shows that point's figures, and a chart with nothing in the range says so instead of drawing an empty frame.
 */
export type ChartPart = {
  [C in SeriesOperation]: {
    type: 'chart';
    operation: C;
    ranges: readonly { value: number; label: string }[];
    args: (range: number) => OperationArgs<C>;
    /** The x axis: a short label of each row (a day as 11-23) and its full name in the tapped figures. */
    x: (row: SeriesRow<C>) => { short: string; full: string };
    charts: readonly ChartSpec<SeriesRow<C>>[];
    empty: string;
  };
}[SeriesOperation];

/** Operations answering the marked days of a month (`{days: [{day, mark}]}`): what a calendar part shows. */
export type CalendarOperation = {
  [K in OperationId]: ResponseData<K> extends { days: readonly { day: string; mark: string }[] } ? K : never;
}[OperationId];
type MarkOf<K extends CalendarOperation> =
  ResponseData<K> extends { days: readonly { mark: infer M extends string }[] } ? M : never;

/**
 * A month calendar with marked days (a run succeeded; only failed or skipped runs), switched month by month; tapping
 * a day lists what it holds with a paged operation filtered by that day.
 */
export type CalendarPart<D> = {
  [C in CalendarOperation]: {
    [L in PageOperation]: {
      type: 'calendar';
      title?: string;
      operation: C;
      /** The query of a month (yyyy-mm), from the record (a platform's id); a null leaves the calendar out. */
      args: (month: string, data: D) => OperationArgs<C> | null;
      /** Each mark's words and sign: two different signs, so colour is never the only difference. */
      marks: Readonly<Record<MarkOf<C>, { label: string; sign: string; tone: Tone }>>;
      day: {
        operation: L;
        filter: (day: string, data: D) => Partial<RequestBody<L>>;
        item: ListItem<RowOf<L>>;
        empty: string;
      };
    };
  }[PageOperation];
}[CalendarOperation];

/**
 * The record's long text as a document to read (用户协议, 隐私政策): a heading, a line under it (when it was last
 * changed) and the text in paragraphs, split at blank lines, drawn as text (never as markup).
 */
export interface DocumentPart<D> {
  type: 'document';
  title: (data: D) => string;
  note?: (data: D) => string | null;
  text: (data: D) => string;
}

export type Part<D> =
  DetailPart<D> | ListPart<D> | CardsPart | StatsPart | ChartPart | CalendarPart<D> | DocumentPart<D>;

/**
 * A screen of several generic parts, one above the other (amis' `body`): e.g. a record with actions above a list of
 * what belongs to it. `load` reads the record the detail parts show and the list parts filter by.
 */
export interface ComposedScreen<K extends OperationId = OperationId> extends ScreenBase {
  kind: 'composed';
  load?: { operation: K; args: (search: URLSearchParams) => OperationArgs<K> };
  /** A text instead of the body when the record says there is nothing to show yet (not an error). */
  unavailable?: (data: ResponseData<NoInfer<K>>) => { title: string; description: string } | null;
  /** Changes that make the record and every part read again quietly (a run planned or finished), as they happen. */
  liveOn?: readonly LiveKind[];
  body: readonly Part<ResponseData<NoInfer<K>>>[];
}

/**
 * A warning at the top of home while a record says something needs attention (沙箱支付 on at a public address): read
 * with an operation that takes no input, only by the roles the contract lets call it, and shown while `show` answers
 * one, with a link to the screen where it is put right.
 */
export type HomeAlert = {
  [K in RecordOperation]: {
    operation: K;
    show: (data: ResponseData<K>) => { text: string; link: { label: string; to: string } } | null;
  };
}[RecordOperation];

/* eslint-disable @typescript-eslint/no-explicit-any -- each screen was checked by its helper; the map erases K */
export type Screen =
  ListScreen<any> | FormScreen<any> | DetailScreen<any> | ComposedScreen<any> | CustomScreen | PendingScreen;
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * A screen as the router first knows it (src/web/generated/route-table.gen.ts, generated from the map): enough to
 * route, guard and title it, and a hand screen's chunk. The rest of its config comes with the full map, fetched beside
 * the first framed or generic screen, so /login loads none of it. Every `Screen` is one.
 */
export type RouteEntry = Pick<ScreenBase, 'path' | 'access' | 'chrome' | 'signedInGoesOn' | 'framesSignedInUser'> & {
  /** Written for a bare screen only (its entry is all the page has of it); a framed one's comes with its config. */
  title?: string;
} & ({ kind: 'custom'; screen: CustomScreenName } | { kind: Exclude<Screen['kind'], 'custom'> });

/** What the frame shows of the current screen: the route entry, with the fuller config of a framed screen. */
export type FrameScreen = RouteEntry &
  Partial<Pick<ScreenBase, 'title' | 'notice' | 'back' | 'headerRight' | 'subject' | 'recordOf'>>;

/**
 * Keep each list's row type tied to its own operation while the map holds them together. They answer the plain
 * `Screen` on purpose: a generic return type would let the array's type steer the inference of K.
 */
export const listScreen = <K extends PageOperation>(screen: ListScreen<K>): Screen => screen;
export const formScreen = <K extends FormOperation>(screen: FormScreen<K>): Screen => screen;
export const detailScreen = <K extends OperationId>(screen: DetailScreen<K>): Screen => screen;
export const composedScreen = <K extends OperationId>(screen: ComposedScreen<K>): Screen => screen;
