import type { VouchTool } from '../tool.js';
import { cardCompleteTool } from './card-complete.js';
import { cardDecideTool } from './card-decide.js';
import { cardOpenTool } from './card-open.js';
import { cardShowTool } from './card-show.js';
import { cardVerifyTool } from './card-verify.js';
import { checksTool } from './checks.js';
import { dispatchReportTool } from './dispatch-report.js';
import { receiptTool } from './receipt.js';
import { reportTool } from './report.js';
import { statusTool } from './status.js';
import { verifyTool } from './verify.js';

/**
 * Every tool `vouch mcp` serves, in the order clients list them. A new tool
 * (vouch_card_show, vouch_dispatch_report, ...) is one file beside these
 * exporting a defineTool(...) and one line here.
 */
export const TOOLS: readonly VouchTool[] = [checksTool, statusTool, verifyTool, receiptTool, dispatchReportTool, reportTool];
/** The task-card tools, ids only. */
export const CARD_TOOLS: readonly VouchTool[] = [cardOpenTool, cardShowTool, cardVerifyTool, cardCompleteTool, cardDecideTool];
