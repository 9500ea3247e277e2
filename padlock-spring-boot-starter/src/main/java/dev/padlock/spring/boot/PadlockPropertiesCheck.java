package dev.padlock.spring.boot;

import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;

/**
 * Fails startup on a {@code padlock.*} key that Padlock does not know, naming it and the closest
 * known key: a misspelled {@code padlock.url} must not fall back to {@code localhost:6379} in
 * silence. The known keys are the bean properties of {@link PadlockProperties}. Only keys the application sets are checked (its
 * properties and YAML files, command-line arguments, test properties): JVM system properties and
 * environment variables are not, since other tools share the {@code PADLOCK_} prefix.
 */
public final class PadlockPropertiesCheck {
    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("padlock");

    /**
     * Checks {@code environment} at once.
     *
     * @throws IllegalStateException naming the first unknown key and the closest known one
     */
    public PadlockPropertiesCheck(Environment environment) {
        List<String> known = knownKeys();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            Object underlying = source.getUnderlyingSource();
            String sourceName = underlying instanceof org.springframework.core.env.PropertySource<?> p ? p.getName() : "";
            if (sourceName.equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)
                    || sourceName.equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)
                    || !(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            for (ConfigurationPropertyName name : (Iterable<ConfigurationPropertyName>) iterable::iterator) {
                if (PREFIX.isAncestorOf(name) && !isKnown(withoutIndexes(name), known)) {
                    throw new IllegalStateException("Unknown property '" + name + "' (in " + sourceName
                            + "): Padlock has no such setting; did you mean '" + closest(name.toString(), known)
                            + "'? Known: " + String.join(", ", known));
                }
            }
        }
    }

    /** Every {@code padlock.*} key: the bean properties of {@link PadlockProperties}, nested ones included. */
    static List<String> knownKeys() {
        List<String> keys = new ArrayList<>();
        collect("padlock", PadlockProperties.class, keys);
        return keys;
    }

    private static void collect(String prefix, Class<?> type, List<String> keys) {
        try {
            for (PropertyDescriptor property : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
                Class<?> valueType = property.getPropertyType();
                String key = prefix + "." + dashed(property.getName());
                if (valueType != null && valueType.getDeclaringClass() == PadlockProperties.class && !valueType.isEnum()) {
                    collect(key, valueType, keys);
                } else if (property.getWriteMethod() != null) {
                    keys.add(key);
                }
            }
        } catch (IntrospectionException e) {
            throw new IllegalStateException("cannot read the properties of " + type.getName(), e);
        }
    }

    private static String dashed(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** {@code name} up to its first index: {@code padlock.cluster.nodes[0]} is {@code padlock.cluster.nodes}. */
    private static ConfigurationPropertyName withoutIndexes(ConfigurationPropertyName name) {
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            if (name.isNumericIndex(i)) {
                return name.chop(i);
            }
        }
        return name;
    }

    private static boolean isKnown(ConfigurationPropertyName name, List<String> known) {
        for (String key : known) {
            if (ConfigurationPropertyName.of(key).equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** The known key at the least edit distance from {@code key}. */
    static String closest(String key, List<String> known) {
        return known.stream().min(Comparator.comparingInt(candidate -> distance(key, candidate))).orElse("padlock.uri");
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
