package dev.padlock.bench;

import dev.padlock.testing.CommandStats;

/**
 * The server's work over a measured window, per acquisition.
 *
 * @param acquisitions the acquisitions in the window
 * @param callsPerAcquisition every command Redis ran (script-internal calls included), the
 *     bench's own {@code INFO} excluded
 * @param subscriptionsPerAcquisition SUBSCRIBE and UNSUBSCRIBE (classic, sharded, pattern)
 * @param cpuMillisPer1000 Redis CPU (user + sys) per 1000 acquisitions
 * @param commands the calls by command over the window
 */
record ServerCost(long acquisitions, double callsPerAcquisition, double subscriptionsPerAcquisition,
        double cpuMillisPer1000, CommandStats commands) {
}
