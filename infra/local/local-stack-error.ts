/** A problem the developer can fix (a busy port, no Java): printed as one line, without a stack trace. */
export class LocalStackError extends Error {}
