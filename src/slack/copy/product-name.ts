/**
 * One name (issue 46 §3): the app is "docs-agent" in every text, as the README, the slash command and the
 * manifest write it. "the docs agent" (two words, lower case) is the docs platform's agent that does a job's
 * work, not this app. No "Docs Agent", "DocsAgent" or "docs_agent" in people's view.
 */
export const PRODUCT_NAME = 'docs-agent';

/** Spellings that are not the product's name; the copy test fails on any of them in a message. */
export const OTHER_SPELLINGS =
  /\b(?:Docs[- ]Agent|DocsAgent|Docsagent|docsagent|docs_agent|Docs-agent|DOCS-AGENT)\b/;
