import type {
  ActionsBlockElement,
  ContextBlockElement,
  InputBlockElement,
  SectionBlockAccessory,
} from '@slack/types';
import { conversationFilter, initialOptions, validZone } from './slack-block-kit-inputs.js';

/**
 * Block Kit's interactive elements, composition objects and the blocks built of them (image, input,
 * rich_text), checked with Slack's published limits (https://docs.slack.dev/reference/block-kit). Which
 * element may sit where comes from @slack/types' unions (`satisfies` below), so a type the package does not
 * allow in a place fails typecheck here, and a type the fake does not know is refused as Slack refuses it.
 * Error strings follow Slack's `invalid_blocks` `errors` array.
 */

type Json = Record<string, unknown>;

export const ELEMENT_LIMITS = {
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  actionId: 255,
  accessibilityLabel: 75,
  placeholder: 150,
  optionText: 75,
  optionValue: 150,
  optionDescription: 75,
  overflowOptions: 5,
  choiceOptions: 10,
  selectOptions: 100,
  inputLength: 3000,
  altText: 2000,
  imageTitle: 2000,
  inputLabel: 2000,
  inputHint: 2000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
} as const;

/** Characters as Slack counts them (code points). */
export const len = (value: unknown) => (typeof value === 'string' ? Array.from(value).length : 0);

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function tooLong(value: unknown, max: number, pointer: string, errors: string[]): void {
  if (len(value) > max) errors.push(`must be less than ${max + 1} characters [json-pointer:${pointer}]`);
}

export function textObject(
  value: unknown,
  pointer: string,
  max: number,
  errors: string[],
  plainOnly = false,
): void {
  if (!isObject(value) || (value.type !== 'plain_text' && value.type !== 'mrkdwn')) {
    errors.push(`must provide an object [json-pointer:${pointer}]`);
    return;
  }
  if (plainOnly && value.type !== 'plain_text')
    errors.push(`must be a valid enum value [json-pointer:${pointer}/type]`);
  if (typeof value.text !== 'string' || value.text.length === 0)
    errors.push(`must be more than 0 characters [json-pointer:${pointer}/text]`);
  tooLong(value.text, max, `${pointer}/text`, errors);
}

export const optional = (value: unknown, check: () => void) => {
  if (value !== undefined) check();
};

/** Element types allowed per place, as @slack/types types them (only those the bot may send). */
export const SECTION_ACCESSORIES = [
  'button',
  'checkboxes',
  'datepicker',
  'image',
  'overflow',
  'radio_buttons',
  'static_select',
  'conversations_select',
  'channels_select',
  'users_select',
] as const satisfies readonly SectionBlockAccessory['type'][];
export const ACTIONS_ELEMENTS = [
  'button',
  'checkboxes',
  'datepicker',
  'overflow',
  'radio_buttons',
  'static_select',
  'conversations_select',
  'channels_select',
  'users_select',
] as const satisfies readonly ActionsBlockElement['type'][];
export const INPUT_ELEMENTS = [
  'plain_text_input',
  'checkboxes',
  'radio_buttons',
  'datepicker',
  'static_select',
  'conversations_select',
  'channels_select',
  'users_select',
  'multi_users_select',
  'timepicker',
] as const satisfies readonly InputBlockElement['type'][];
const CONTEXT_ELEMENTS = [
  'image',
  'plain_text',
  'mrkdwn',
] as const satisfies readonly ContextBlockElement['type'][];

export { CONTEXT_ELEMENTS };

function confirm(value: unknown, at: string, errors: string[]): void {
  if (!isObject(value)) {
    errors.push(`must provide an object [json-pointer:${at}]`);
    return;
  }
  textObject(value.title, `${at}/title`, ELEMENT_LIMITS.confirmTitle, errors, true);
  textObject(value.text, `${at}/text`, ELEMENT_LIMITS.confirmText, errors);
  textObject(value.confirm, `${at}/confirm`, ELEMENT_LIMITS.confirmButton, errors, true);
  textObject(value.deny, `${at}/deny`, ELEMENT_LIMITS.confirmButton, errors, true);
}

function options(
  list: unknown,
  at: string,
  min: number,
  max: number,
  errors: string[],
  plainOnly: boolean,
): void {
  if (!Array.isArray(list) || list.length < min || list.length > max) {
    errors.push(`must be between ${min} and ${max} items [json-pointer:${at}]`);
    return;
  }
  for (const [i, option] of list.entries()) {
    const p = `${at}/${i}`;
    if (!isObject(option)) {
      errors.push(`must provide an object [json-pointer:${p}]`);
      continue;
    }
    textObject(option.text, `${p}/text`, ELEMENT_LIMITS.optionText, errors, plainOnly);
    if (typeof option.value !== 'string' || option.value.length === 0)
      errors.push(`must be more than 0 characters [json-pointer:${p}/value]`);
    tooLong(option.value, ELEMENT_LIMITS.optionValue, `${p}/value`, errors);
    optional(option.description, () =>
      textObject(option.description, `${p}/description`, ELEMENT_LIMITS.optionDescription, errors, plainOnly),
    );
    optional(option.url, () => tooLong(option.url, ELEMENT_LIMITS.url, `${p}/url`, errors));
  }
}

function image(element: Json, at: string, errors: string[]): void {
  if (typeof element.alt_text !== 'string' || element.alt_text.length === 0)
    errors.push(`must be more than 0 characters [json-pointer:${at}/alt_text]`);
  tooLong(element.alt_text, ELEMENT_LIMITS.altText, `${at}/alt_text`, errors);
  if (typeof element.image_url === 'string')
    tooLong(element.image_url, ELEMENT_LIMITS.url, `${at}/image_url`, errors);
  else if (!isObject(element.slack_file))
    errors.push(`must provide image_url or slack_file [json-pointer:${at}]`);
}

const placeholder = (element: Json, at: string, errors: string[]) =>
  optional(element.placeholder, () =>
    textObject(element.placeholder, `${at}/placeholder`, ELEMENT_LIMITS.placeholder, errors, true),
  );

/** One element in a place that allows `allowed` types. */
export function checkElement(
  element: unknown,
  at: string,
  errors: string[],
  allowed: readonly string[],
): void {
  if (!isObject(element) || typeof element.type !== 'string') {
    errors.push(`must provide an object [json-pointer:${at}]`);
    return;
  }
  if (!allowed.includes(element.type)) {
    errors.push(`must be a valid enum value [json-pointer:${at}/type]`);
    return;
  }
  optional(element.action_id, () =>
    tooLong(element.action_id, ELEMENT_LIMITS.actionId, `${at}/action_id`, errors),
  );
  optional(element.confirm, () => confirm(element.confirm, `${at}/confirm`, errors));
  switch (element.type) {
    case 'button':
      textObject(element.text, `${at}/text`, ELEMENT_LIMITS.buttonText, errors, true);
      optional(element.url, () => tooLong(element.url, ELEMENT_LIMITS.url, `${at}/url`, errors));
      optional(element.value, () =>
        tooLong(element.value, ELEMENT_LIMITS.buttonValue, `${at}/value`, errors),
      );
      if (element.style !== undefined && element.style !== 'primary' && element.style !== 'danger')
        errors.push(`must be a valid enum value [json-pointer:${at}/style]`);
      optional(element.accessibility_label, () =>
        tooLong(
          element.accessibility_label,
          ELEMENT_LIMITS.accessibilityLabel,
          `${at}/accessibility_label`,
          errors,
        ),
      );
      return;
    case 'overflow':
      options(element.options, `${at}/options`, 1, ELEMENT_LIMITS.overflowOptions, errors, true);
      return;
    case 'checkboxes':
    case 'radio_buttons':
      options(element.options, `${at}/options`, 1, ELEMENT_LIMITS.choiceOptions, errors, false);
      initialOptions(element, at, errors);
      return;
    case 'static_select':
      placeholder(element, at, errors);
      if (element.option_groups === undefined)
        options(element.options, `${at}/options`, 1, ELEMENT_LIMITS.selectOptions, errors, true);
      initialOptions(element, at, errors);
      return;
    case 'timepicker':
      placeholder(element, at, errors);
      // Slack: `HH:mm`, 24-hour, with leading zeros ("9:00" and "09:00:00" are refused).
      if (
        element.initial_time !== undefined &&
        !/^([01]\d|2[0-3]):[0-5]\d$/.test(String(element.initial_time))
      )
        errors.push(`must match format HH:mm [json-pointer:${at}/initial_time]`);
      optional(element.timezone, () => {
        if (!validZone(element.timezone))
          errors.push(`must be a valid IANA time zone [json-pointer:${at}/timezone]`);
      });
      return;
    case 'multi_users_select':
      placeholder(element, at, errors);
      optional(element.initial_users, () => {
        const users = element.initial_users;
        if (!Array.isArray(users) || users.some((u) => typeof u !== 'string' || !/^[UW][A-Z0-9]+$/.test(u)))
          errors.push(`must be an array of user ids [json-pointer:${at}/initial_users]`);
      });
      optional(element.max_selected_items, () => {
        const max = element.max_selected_items;
        if (typeof max !== 'number' || !Number.isInteger(max) || max < 1)
          errors.push(`must be at least 1 [json-pointer:${at}/max_selected_items]`);
      });
      return;
    case 'conversations_select':
      placeholder(element, at, errors);
      conversationFilter(element, at, errors);
      return;
    case 'plain_text_input': {
      placeholder(element, at, errors);
      const { min_length: min, max_length: max } = element;
      if (min !== undefined && (typeof min !== 'number' || min < 0 || min > ELEMENT_LIMITS.inputLength))
        errors.push(`must be between 0 and ${ELEMENT_LIMITS.inputLength} [json-pointer:${at}/min_length]`);
      if (max !== undefined && (typeof max !== 'number' || max < 1 || max > ELEMENT_LIMITS.inputLength))
        errors.push(`must be between 1 and ${ELEMENT_LIMITS.inputLength} [json-pointer:${at}/max_length]`);
      const cap = typeof max === 'number' ? max : ELEMENT_LIMITS.inputLength;
      optional(element.initial_value, () =>
        tooLong(element.initial_value, cap, `${at}/initial_value`, errors),
      );
      return;
    }
    case 'image':
      image(element, at, errors);
      return;
    case 'datepicker':
      placeholder(element, at, errors);
      if (element.initial_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(element.initial_date)))
        errors.push(`must match format YYYY-MM-DD [json-pointer:${at}/initial_date]`);
      return;
    default:
      // The selects of conversations, channels and users: a placeholder at most.
      placeholder(element, at, errors);
  }
}

/** `image` blocks: alt text, an image, an optional plain-text title. */
export function checkImageBlock(block: Json, at: string, errors: string[]): void {
  image(block, at, errors);
  optional(block.title, () =>
    textObject(block.title, `${at}/title`, ELEMENT_LIMITS.imageTitle, errors, true),
  );
}

/** `input` blocks: a plain-text label, one input element, an optional hint. */
export function checkInputBlock(block: Json, at: string, errors: string[]): void {
  textObject(block.label, `${at}/label`, ELEMENT_LIMITS.inputLabel, errors, true);
  if (block.element === undefined) errors.push(`must provide an object [json-pointer:${at}/element]`);
  else checkElement(block.element, `${at}/element`, errors, INPUT_ELEMENTS);
  optional(block.hint, () => textObject(block.hint, `${at}/hint`, ELEMENT_LIMITS.inputHint, errors, true));
}
