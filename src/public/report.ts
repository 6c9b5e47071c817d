/**
 * @module a2a-replay/report
 * The self-contained HTML report (docs/design.md §12): sections read from recordings, receipt logs,
 * fleets of logs (§17) and replay results, and the file written from them.
 */
export { reportSections, reportInputOf, fleetReportSection, writeHtmlReport } from '../report/write-report.js';
export { type ReportInput, ReportInputError, fileSections, replaySection } from '../report/build-report.js';
export { type Report, type ReportSection, pausesOf } from '../report/html-report.js';
export { traceUrlProblem } from '../report/trace-link.js';
