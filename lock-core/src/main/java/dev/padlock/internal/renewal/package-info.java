/**
 * Renewal: the watchdog that keeps the leases of watchdog-held locks alive, every owner of this
 * client in one batched script call per round (every lease/3 on the client's timer), and reports
 * a lease it finds lost. Uses {@code protocol}, {@code script}, {@code redis}.
 */
@NullMarked
package dev.padlock.internal.renewal;

import org.jspecify.annotations.NullMarked;
