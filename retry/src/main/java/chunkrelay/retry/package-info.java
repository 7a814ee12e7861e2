/** How long to wait between attempts, and how long an upstream asks to wait, shared by every module that retries. */
package chunkrelay.retry;
