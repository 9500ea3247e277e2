package dev.padlock.cli;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.padlock.LockClient;
import dev.padlock.LockConfig;
import dev.padlock.RLock;
import dev.padlock.spi.LockKeys;
import dev.padlock.testing.RedisAdmin;
import dev.padlock.testing.RedisEndpoint;
import dev.padlock.testing.junit.RedisTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 23: the output itself. JSON numbers are numbers, {@code clients}' columns fit their
 * content, no usage help cuts a description short, and a holder without a client or a since
 * says why.
 */
@RedisTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PadlockCommandOutputTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration BOUND = Duration.ofSeconds(30);

    private String uri;
    private RedisAdmin admin;
    private Cli cli;
    private RedissonClient redisson;
    private final List<LockClient> clients = new ArrayList<>();
    private Owners owners;

    @BeforeAll
    void start(RedisEndpoint redis, RedisAdmin admin) {
        this.uri = redis.uri();
        this.admin = admin;
        this.cli = new Cli(uri);
        Config config = new Config();
        config.useSingleServer().setAddress(uri).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1);
        redisson = Redisson.create(config);
    }

    @AfterAll
    void stop() {
        redisson.shutdown(0, 5, SECONDS);
    }

    @BeforeEach
    void newOwners() {
        clients.clear();
        owners = new Owners();
    }

    @AfterEach
    void closeOwnersThenClients() throws InterruptedException {
        owners.close();
        clients.forEach(LockClient::close);
    }

    private LockClient client(String application) {
        LockClient client = LockClient.create(LockConfig.builder().redisUri(uri).applicationName(application).build());
        clients.add(client);
        await().atMost(BOUND).until(() -> admin.commands().exists(LockKeys.client(client.getId())) == 1);
        return client;
    }

    @Test
    void jsonGivesTheRegistrysNumbersAsNumbers() throws Exception {
        String name = "json:" + UUID.randomUUID();
        RLock held = client("json-holder").getLock(name);
        owners.hold("holder", held::lockInterruptibly, held::unlock);
        RLock waiting = client("json-waiter").getLock(name);
        owners.waitFor("waiter", waiting::lockInterruptibly, waiting::unlock);
        await().atMost(BOUND).until(() -> admin.commands().llen(LockKeys.waiterQueue(name)) == 1);

        JsonNode show = JSON.readTree(cli.run("--json", "show", name).out());
        assertTyped(show.get("holders").get(0).get("client"));
        assertTyped(show.get("queue").get(0).get("client"));
        JsonNode registry = JSON.readTree(cli.run("--json", "clients").out());
        assertThat(registry).isNotEmpty();
        registry.forEach(entry -> {
            assertTyped(entry);
            assertThat(entry.get("ttlMillis").isIntegralNumber()).isTrue();
        });
        JsonNode released = JSON.readTree(cli.run("--json", "force-unlock", "--yes", name).out());
        assertThat(released.get("released").isBoolean()).isTrue();
        assertTyped(released.get("holders").get(0).get("client"));
    }

    /** A registry entry in JSON: its numbers are numbers, its names and versions strings. */
    private static void assertTyped(JsonNode client) {
        for (String number : List.of("pid", "started", "watchdogMillis")) {
            assertThat(client.get(number).isIntegralNumber()).as("%s is a number in %s", number, client).isTrue();
        }
        for (String text : List.of("id", "application", "host", "version", "java")) {
            assertThat(client.get(text).isString()).as("%s is a string in %s", text, client).isTrue();
        }
    }

    @Test
    void clientsSizesItsColumnsToAFortyCharacterApplicationName() {
        String longName = "an-application-name-of-forty-characters!";
        assertThat(longName).hasSize(40);
        List<LockClient> both = List.of(client(longName), client("short"));

        List<String> lines = cli.run("clients").out().lines().toList();
        String header = lines.get(0);
        for (LockClient c : both) {
            Map<String, String> entry = admin.commands().hgetall(LockKeys.client(c.getId()));
            String row = lines.stream().filter(line -> line.startsWith(c.getId())).findFirst().orElseThrow();
            assertThat(row.substring(header.indexOf("APPLICATION"))).startsWith(entry.get("application") + " ");
            assertThat(row.substring(header.indexOf("HOST"))).startsWith(entry.get("host") + " ");
            assertThat(row.substring(0, header.indexOf("PID") + "PID".length())).endsWith(" " + entry.get("pid"));
            assertThat(row.substring(header.indexOf("VERSION"))).startsWith(entry.get("version") + " ");
            assertThat(row.substring(header.indexOf("STARTED")))
                    .isEqualTo(Text.time(Long.parseLong(entry.get("started"))));
        }
    }

    @Test
    void usageHelpNeverCutsADescriptionMidSentence() {
        List<CommandLine> commands = new ArrayList<>();
        collect(PadlockCommand.commandLine(new PadlockCommand()), commands);
        for (int width : new int[] {55, 80, 120}) {
            for (CommandLine command : commands) {
                command.getCommandSpec().usageMessage().autoWidth(false).width(width);
                String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
                String what = "'" + command.getCommandSpec().qualifiedName() + " --help' at width " + width;
                String flat = help.replaceAll("\\s+", "");
                for (String description : descriptions(command)) {
                    assertThat(description.strip()).as("%s: a description ends its sentence: %s", what, description).matches("(?s).*[.)]");
                    assertThat(flat).as("%s shows the whole of: %s%n%s", what, description, help)
                            .contains(description.replaceAll("\\s+", ""));
                }
                for (String entry : entries(help)) {
                    assertThat(entry).as("%s: an entry ends its sentence%n%s", what, help).matches("(?s).*[.)]");
                }
            }
        }
    }

    private static void collect(CommandLine command, List<CommandLine> all) {
        all.add(command);
        command.getSubcommands().values().forEach(sub -> collect(sub, all));
    }

    /**
     * Every description the usage help of {@code command} shows: its own header and description,
     * its options' and parameters', and its commands' (a command's header where it has one, as
     * picocli lists it, else its description).
     */
    private static List<String> descriptions(CommandLine command) {
        List<String> all = new ArrayList<>();
        all.add(text(command.getCommandSpec().usageMessage().header()));
        all.add(text(command.getCommandSpec().usageMessage().description()));
        for (ArgSpec arg : command.getCommandSpec().args()) {
            if (!arg.hidden()) {
                all.add(text(arg.description()).replace("${DEFAULT-VALUE}", String.valueOf(arg.defaultValue())));
            }
        }
        command.getSubcommands().values().forEach(sub -> {
            String header = text(sub.getCommandSpec().usageMessage().header());
            all.add(header.isBlank() ? text(sub.getCommandSpec().usageMessage().description()) : header);
        });
        all.removeIf(String::isBlank);
        return all;
    }

    /** Lines of a description as one text, picocli's {@code %n} line breaks as spaces. */
    private static String text(String[] lines) {
        return String.join(" ", lines).replace("%n", " ").strip();
    }

    /**
     * The entries of a usage help after its synopsis, each with its continuation lines: a
     * paragraph (lines at column 0), an option, a parameter or a command (indented less than 8,
     * its description's wrapped lines indented more). Headings ({@code Commands:}) are left out.
     */
    private static List<String> entries(String help) {
        List<String> entries = new ArrayList<>();
        String[] lines = help.split("\\R");
        int i = 0;
        while (i < lines.length && !lines[i].startsWith("Usage:")) {
            i++; // a header: checked among the descriptions
        }
        i++;
        while (i < lines.length && lines[i].startsWith(" ")) {
            i++; // the synopsis goes on
        }
        StringBuilder entry = null;
        int entryIndent = -1;
        for (; i < lines.length; i++) {
            String line = lines[i];
            int indent = line.length() - line.stripLeading().length();
            boolean heading = indent == 0 && line.strip().endsWith(":");
            boolean continues = entry != null && !line.isBlank() && !heading
                    && (indent >= 8 || indent == 0 && entryIndent == 0);
            if (!continues && entry != null) {
                entries.add(entry.toString().strip());
                entry = null;
            }
            if (!continues && !line.isBlank() && !heading) {
                entry = new StringBuilder();
                entryIndent = indent;
            }
            if (entry != null) {
                entry.append(' ').append(line.strip());
            }
        }
        if (entry != null) {
            entries.add(entry.toString().strip());
        }
        return entries;
    }

    @Test
    void showSaysWhyARedissonHolderHasNoClientAndNoSince() throws Exception {
        String name = "redisson-held:" + UUID.randomUUID();
        org.redisson.api.RLock lock = redisson.getLock(name);
        owners.hold("redisson holds", lock::lockInterruptibly, lock::unlock);

        JsonNode holder = JSON.readTree(cli.run("--json", "show", name).out()).get("holders").get(0);
        assertThat(holder.get("client").isNull()).isTrue();
        assertThat(holder.get("clientNote").asText()).contains("not in Padlock's registry", "a Redisson client");
        assertThat(holder.get("sinceMillis").isNull()).isTrue();
        assertThat(holder.get("sinceNote").asText()).contains("Redisson does not record when a lock was taken");

        assertThat(cli.run("show", name).out()).contains(
                "client   not in Padlock's registry (a Redisson client",
                "since    unknown (Redisson does not record when a lock was taken)");

        // a Padlock holder has both, and no notes
        String ours = "padlock-held:" + UUID.randomUUID();
        RLock padlock = client("noted").getLock(ours);
        owners.hold("padlock holds", padlock::lockInterruptibly, padlock::unlock);
        // its since is noted once the hold has lasted a moment (SinceNotes)
        JsonNode known = await("the holder's since noted").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> JSON.readTree(cli.run("--json", "show", ours).out()).get("holders").get(0),
                        h -> !h.has("sinceNote"));
        assertThat(known.has("clientNote")).isFalse();
        assertThat(known.has("sinceNote")).isFalse();
    }
}
