/** Background work kept by the time it is due on the relay's one clock, so that tests move time instead of waiting. */
package chunkrelay.envelope.schedule;
