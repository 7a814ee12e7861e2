/** How long to wait between attempts, shared by every module that retries. */
package chunkrelay.retry;
