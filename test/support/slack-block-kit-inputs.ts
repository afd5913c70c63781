/** Slack's checks of input elements' initial values and filters (see slack-block-kit-elements.ts). */
import { isObject, optional } from './slack-block-kit-elements.js';

type Json = Record<string, unknown>;

/** A select's or checkboxes' initial options: each one of its options, text and value alike (as Slack checks). */
export function initialOptions(element: Json, at: string, errors: string[]): void {
  const initial = element.initial_option !== undefined ? [element.initial_option] : element.initial_options;
  if (initial === undefined || !Array.isArray(element.options)) return;
  const known = new Set(
    element.options.map((o) => JSON.stringify(isObject(o) ? [o.value, (o.text as Json)?.text] : o)),
  );
  const key = element.initial_option !== undefined ? 'initial_option' : 'initial_options';
  if (
    !Array.isArray(initial) ||
    initial.some((o) => !isObject(o) || !known.has(JSON.stringify([o.value, (o.text as Json)?.text])))
  )
    errors.push(`must match one of the options [json-pointer:${at}/${key}]`);
}

export function validZone(zone: unknown): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: String(zone) });
    return typeof zone === 'string';
  } catch {
    return false;
  }
}

/** conversations_select's `filter` and `default_to_current_conversation`, as Slack types them. */
export function conversationFilter(element: Json, at: string, errors: string[]): void {
  optional(element.default_to_current_conversation, () => {
    if (typeof element.default_to_current_conversation !== 'boolean')
      errors.push(`must be a boolean [json-pointer:${at}/default_to_current_conversation]`);
  });
  optional(element.filter, () => {
    const include = isObject(element.filter) ? element.filter.include : undefined;
    if (
      include !== undefined &&
      (!Array.isArray(include) ||
        include.length === 0 ||
        include.some((k) => !['im', 'mpim', 'private', 'public'].includes(String(k))))
    )
      errors.push(`must be a valid enum value [json-pointer:${at}/filter/include]`);
  });
}
