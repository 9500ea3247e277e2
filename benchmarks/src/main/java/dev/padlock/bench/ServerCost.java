package dev.padlock.bench;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server's work over a measured window, per acquisition; on a cluster, summed over the
 * masters.
 *
 * @param acquisitions the acquisitions in the window
 * @param callsPerAcquisition every command Redis ran (script-internal calls included), the
 *     bench's own {@code INFO} excluded
 * @param subscriptionsPerAcquisition SUBSCRIBE and UNSUBSCRIBE (classic, sharded, pattern)
 * @param cpuMillisPer1000 Redis CPU (user + sys) per 1000 acquisitions
 * @param commands the calls by command over the window (lower-case names, sorted)
 */
record ServerCost(long acquisitions, double callsPerAcquisition, double subscriptionsPerAcquisition,
        double cpuMillisPer1000, Map<String, Long> commands) {

    ServerCost {
        commands = Collections.unmodifiableMap(new TreeMap<>(commands));
    }

    /** The calls of {@code command} (lower case, e.g. {@code spublish}) per acquisition; 0 when none. */
    double perAcquisition(String command) {
        return (double) commands.getOrDefault(command, 0L) / acquisitions;
    }
}
