package dev.padlock.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandStatsTest {

    private static final String BEFORE = "# Commandstats\r\n"
            + "cmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_client|setinfo:calls=2,usec=3,usec_per_call=1.50,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_info:calls=1,usec=50,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r\n";

    private static final String AFTER = "# Commandstats\r\n"
            + "cmdstat_evalsha:calls=25,usec=250,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_publish:calls=7,usec=7,usec_per_call=1.00\r\n"
            + "cmdstat_client|setinfo:calls=2,usec=3,usec_per_call=1.50,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_info:calls=2,usec=100,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r\n";

    @Test
    void parsesCallsPerCommand() {
        CommandStats stats = CommandStats.parse(BEFORE);

        assertEquals(Map.of("evalsha", 10L, "client|setinfo", 2L, "info", 1L), stats.asMap());
        assertEquals(13, stats.total());
        assertEquals(0, stats.calls("publish"));
        assertEquals(10, stats.calls("EVALSHA"));
    }

    @Test
    void deltaKeepsOnlyNewCalls() {
        CommandStats delta = CommandStats.delta(CommandStats.parse(BEFORE), CommandStats.parse(AFTER));

        assertEquals(Map.of("evalsha", 15L, "publish", 7L, "info", 1L), delta.asMap());
        assertEquals(Map.of("evalsha", 15L, "publish", 7L), delta.without("info").asMap());
        assertEquals(Map.of("evalsha", 15L, "info", 1L), delta.minus("publish", 7).asMap());
        assertThrows(IllegalArgumentException.class, () -> delta.minus("publish", 8));
    }

    @Test
    void readsALiveServer() {
        try (RedisServerProcess server = RedisServerProcess.start();
                RedisAdmin admin = RedisAdmin.connect(server.uri())) {
            CommandStats before = admin.commandStats();
            for (int i = 0; i < 5; i++) {
                admin.commands().set("k", String.valueOf(i));
            }
            CommandStats delta = CommandStats.delta(before, admin.commandStats());

            assertEquals(Map.of("set", 5L, "info", 1L), delta.asMap());
        }
    }
}
