package dev.padlock.demo;

/**
 * What a worker reports at the end, summed over its threads (the {@code DONE} message).
 *
 * @param acquisitions every acquisition, read locks included
 * @param gets the demo's own GET calls (exact)
 * @param sets the demo's own SET calls (exact)
 * @param leasesExpired unlocks that found the fixed lease already expired
 * @param writes exclusive acquisitions, each of which incremented the counter
 * @param tornReads read-lock acquisitions that saw the counter change between two reads
 * @param tokenViolations fencing tokens not larger than the last one written
 */
record WorkerTotals(long acquisitions, long gets, long sets, long leasesExpired, long writes, long tornReads,
        long tokenViolations) {

    /** Nothing yet: before the worker reported. */
    static final WorkerTotals NONE = new WorkerTotals(0, 0, 0, 0, 0, 0, 0);

    /** The sum of all threads' loops (call after they ended). */
    static WorkerTotals of(Iterable<CounterLoop> loops) {
        WorkerTotals sum = NONE;
        for (CounterLoop loop : loops) {
            sum = sum.plus(new WorkerTotals(loop.acquisitions(), loop.gets(), loop.sets(), loop.leasesExpired(),
                    loop.writes(), loop.tornReads(), loop.tokenViolations()));
        }
        return sum;
    }

    /** These figures plus {@code other}'s, one by one. */
    WorkerTotals plus(WorkerTotals other) {
        return new WorkerTotals(acquisitions + other.acquisitions, gets + other.gets, sets + other.sets,
                leasesExpired + other.leasesExpired, writes + other.writes, tornReads + other.tornReads,
                tokenViolations + other.tokenViolations);
    }

    /** The figures in the order of the {@code DONE} message. */
    long[] toArray() {
        return new long[] {acquisitions, gets, sets, leasesExpired, writes, tornReads, tokenViolations};
    }

    /**
     * The figures of a {@code DONE} message.
     *
     * @throws IllegalArgumentException when there are not seven of them
     */
    static WorkerTotals fromArray(long[] numbers) {
        if (numbers.length != 7) {
            throw new IllegalArgumentException("DONE needs 7 numbers, got " + numbers.length);
        }
        return new WorkerTotals(numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5], numbers[6]);
    }
}
