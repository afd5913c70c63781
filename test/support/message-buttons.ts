/** A button as tests look at it. */
export interface ButtonJson {
  action_id: string;
  value?: string;
  url?: string;
  text?: { text: string };
  style?: string;
}

/** Every button of a message: in actions blocks and beside sections (their accessory). */
export function messageButtons(blocks: unknown): ButtonJson[] {
  const list = (blocks ?? []) as Array<{
    type: string;
    elements?: Array<ButtonJson & { type?: string }>;
    accessory?: ButtonJson & { type?: string };
  }>;
  return list.flatMap((b) => [
    ...(b.type === 'actions' ? (b.elements ?? []) : []),
    ...(b.accessory?.type === 'button' ? [b.accessory] : []),
  ]);
}
