package dev.padlock.bench;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs {@link PairBenchmark} in one forked JVM (same {@code java} and class path) with the GC
 * profiler, and reads {@code gc.alloc.rate.norm}: bytes allocated per uncontended pair.
 */
final class JmhAllocation {

    private JmhAllocation() {
    }

    /** Bytes per pair by library name, on {@code target}. */
    static Map<String, Double> bytesPerPair(RedisTarget target) throws RunnerException {
        Options options = new OptionsBuilder()
                .include(PairBenchmark.class.getName() + ".lockAndUnlock")
                .param("target", target.argument())
                .forks(1)
                .warmupIterations(2)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(3)
                .measurementTime(TimeValue.seconds(1))
                .addProfiler(GCProfiler.class)
                .jvmArgsAppend("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .verbosity(VerboseMode.SILENT)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        Map<String, Double> bytes = new LinkedHashMap<>();
        for (RunResult result : results) {
            String library = result.getParams().getParam("library");
            bytes.put(library, allocationNorm(result));
        }
        return bytes;
    }

    private static double allocationNorm(RunResult result) {
        for (String name : result.getSecondaryResults().keySet()) {
            if (name.endsWith("gc.alloc.rate.norm")) {
                return result.getSecondaryResults().get(name).getScore();
            }
        }
        throw new IllegalStateException("JMH reported no gc.alloc.rate.norm; it has "
                + result.getSecondaryResults().keySet());
    }
}
