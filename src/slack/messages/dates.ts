// Moved to the copy system (src/slack/copy/dates.ts); re-exported for the builders that import it from here.
export { formatDay, formatDayRange, formatDuration, INSTANT_TOKEN, slackTime } from '../copy/dates.js';
