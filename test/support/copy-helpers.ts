/**
 * Exports of src/slack/messages that are not messages, each with why (test/unit/copy-system.test.ts): a
 * new export must be rendered there or named here, so no message kind escapes the copy test unseen.
 */
const PARSER = 'parses a submission or a button value: no words of ours';
const ENCODER = 'encodes a button value or metadata: never shown';
const FORMAT = 'a formatting piece, checked through the messages that use it';
const COPY = 'the copy system itself (src/slack/copy), re-exported: tested in message-dates.test.ts';
const CHART = 'a chart block: labels are days and numbers, checked through trend-chart.ts and the reports';

export const HELPERS: Record<string, Record<string, string>> = {
  'top-pages-list.ts': {
    n: FORMAT,
    splitBar: 'a bar of █ and ░ (no words)',
    pageUrl: 'a page URL (a link target)',
  },
  'weekly-post.ts': { weeklyStopButton: 'a button, checked through weeklyPost' },
  'agent-session.ts': { stopChoiceValue: ENCODER, parseStopChoiceValue: PARSER },
  'app-home.ts': { channelLink: 'a link to a channel (a URL)' },
  'home-jobs.ts': { homeStopValue: ENCODER, parseHomeStopValue: PARSER },
  'assistant-confirm.ts': { parsePendingId: PARSER },
  'charts.ts': {
    ChartInputError: 'an error class (logged, never shown)',
    dailyChartBlock: CHART,
    bucketedChartBlock: CHART,
    pieChartBlock: CHART,
  },
  'dates.ts': { formatDay: COPY, formatDayRange: COPY, formatDuration: COPY, slackTime: COPY },
  'failures.ts': { perHour: FORMAT },
  'format.ts': {
    displayCount: COPY,
    displayRatio: COPY,
    formatCount: COPY,
    formatDuration: COPY,
    slackTime: COPY,
    mrkdwnLink: FORMAT,
    repositoryLabel: FORMAT,
    repositoryBranchUrl: 'a URL',
    docsPageUrl: 'a URL',
  },
  'github-connect-modal.ts': { parseGithubSubmission: PARSER },
  'home-schedules-form.ts': {
    encodeWeeklyChoice: ENCODER,
    channelPickerInput: FORMAT,
    parseWeeklyChoice: PARSER,
    parseWeeklySubmission: PARSER,
    parseWeeklyRemove: PARSER,
    fieldOf: PARSER,
    metadataOf: PARSER,
  },
  'home-alerts-form.ts': {
    encodeAlertChoice: ENCODER,
    parseAlertChoice: PARSER,
    parseAlertSubmission: PARSER,
    parseAlertRemove: PARSER,
  },
  'settings-form.ts': { parseSettingsSubmission: PARSER },
  'health-modal.ts': { parseHealthFixSubmission: PARSER },
  'health-report.ts': { healthPageUrl: 'a URL' },
  'help.ts': { placeholder: FORMAT },
  'job-card-actions.ts': {
    retryActions: 'buttons only (Retry), rendered with the failed card',
    pullRequestActions: 'a button only (Open pull request)',
    cardBlockId: 'a hidden block_id (never shown)',
  },
  'job-card.ts': {
    pullRequestActions: 'a button only (Open pull request)',
    jobTitle: 'the instruction as its title: the person’s words, rendered on every card',
    promptQuote: 'the person’s instruction quoted as rich text, never our words',
    safeId: FORMAT,
    projectPart: FORMAT,
  },
  'job-feedback.ts': { parseFeedbackValue: PARSER },
  'job-list.ts': { threadLink: 'a URL', escapedPreview: FORMAT },
  'job-modal.ts': { encodeRefs: ENCODER, decodeRefs: PARSER, parseJobSubmission: PARSER },
  'limits.ts': { truncate: FORMAT, oneLine: FORMAT, fitLink: FORMAT, blockTextLength: 'counts characters' },
  'page-views-replies.ts': { codeToken: FORMAT },
  'page-views-report.ts': { splitBar: 'a bar of █ and ░', pageUrl: 'a URL', plural: FORMAT },
  'project-connect-modal.ts': { parseConnectSubmission: PARSER },
  'pull-request.ts': { pullRequestNumber: PARSER },
  'review-message.ts': { encodeMessageRef: ENCODER, decodeMessageRef: PARSER },
  'trend-chart.ts': {
    pointUnit: 'a unit word ("day", "week")',
    trendChart: 'the chart of viewsTrendChart and healthTrendChart',
  },
};
