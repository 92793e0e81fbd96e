/** The internal hook event a background runner answers (`vouch hook CLIENT GateRun`, its order on stdin): see background.ts. */
export const GATE_RUN_EVENT = 'GateRun';
