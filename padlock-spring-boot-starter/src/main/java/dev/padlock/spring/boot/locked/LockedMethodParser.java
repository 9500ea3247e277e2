package dev.padlock.spring.boot.locked;

import dev.padlock.RLock;
import dev.padlock.spring.Locked;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Reads a {@link Locked} annotation into a {@link LockedMethod}, or says what is wrong with it:
 * the name must parse as SpEL and name only variables the method has ({@code #p0}/{@code #a0},
 * or a parameter's name where the class was compiled with {@code -parameters}); the durations
 * must read as Spring Boot reads them, with a unit (but {@code "0"}), and not be negative; the return type must be one whose
 * completion the lock can follow.
 */
final class LockedMethodParser {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final Pattern INDEXED = Pattern.compile("[pa](\\d+)");
    private static final Pattern BARE_NUMBER = Pattern.compile("[-+]?\\d+");

    private LockedMethodParser() {
    }

    /**
     * @throws IllegalStateException naming the method, the attribute and its value
     */
    static LockedMethod parse(Method method, Locked locked) {
        String where = "@Locked on " + LockedMethod.describe(method) + ": ";
        SpelExpression name;
        try {
            name = (SpelExpression) PARSER.parseExpression(locked.name());
        } catch (ParseException | IllegalStateException e) {
            throw new IllegalStateException(where + "name \"" + locked.name() + "\" is not a SpEL expression: "
                    + e.getMessage(), e);
        }
        String unknown = unknownVariable(name.getAST(), method);
        if (unknown != null) {
            throw new IllegalStateException(where + "name \"" + locked.name() + "\" refers to " + unknown);
        }
        Duration waitTime = locked.waitTime().isBlank() ? null : duration(where, "waitTime", locked.waitTime());
        Duration leaseTime = locked.leaseTime().isBlank() ? Duration.ZERO : duration(where, "leaseTime", locked.leaseTime());
        if (leaseTime.compareTo(RLock.MAX_LEASE) > 0) {
            throw new IllegalStateException(where + "leaseTime \"" + locked.leaseTime() + "\" is over the longest lease, "
                    + RLock.MAX_LEASE);
        }
        LockedRoute route;
        try {
            route = LockedRoute.of(method);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + e.getMessage(), e);
        }
        return new LockedMethod(method, locked.name(), name, locked.kind(), waitTime, leaseTime, route);
    }

    private static Duration duration(String where, String attribute, String value) {
        if (BARE_NUMBER.matcher(value.strip()).matches() && !value.strip().matches("0+")) {
            throw new IllegalStateException(where + attribute + " \"" + value + "\" has no unit; write one (\""
                    + value.strip() + "ms\" or \"" + value.strip() + "s\"): a bare number is milliseconds to Spring"
                    + " Boot's duration style but seconds to padlock.* properties");
        }
        Duration duration;
        try {
            duration = DurationStyle.detectAndParse(value.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(where + attribute + " \"" + value + "\" is not a duration (such as "
                    + "\"500ms\", \"5s\" or \"PT5S\"): " + e.getMessage(), e);
        }
        if (duration.isNegative()) {
            throw new IllegalStateException(where + attribute + " \"" + value + "\" is negative");
        }
        return duration;
    }

    /** The first {@code #variable} of the expression that a call of {@code method} would not have, described; or null. */
    private static String unknownVariable(SpelNode node, Method method) {
        if (node instanceof VariableReference) {
            String variable = node.toStringAST().substring(1);
            String why = whyUnknown(variable, method);
            if (why != null) {
                return "#" + variable + ", " + why;
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            String unknown = unknownVariable(node.getChild(i), method);
            if (unknown != null) {
                return unknown;
            }
        }
        return null;
    }

    private static String whyUnknown(String variable, Method method) {
        if (variable.equals("root") || variable.equals("this")) {
            return null;
        }
        var indexed = INDEXED.matcher(variable);
        if (indexed.matches()) {
            return Integer.parseInt(indexed.group(1)) < method.getParameterCount() ? null
                    : "but the method has " + method.getParameterCount() + " parameter(s)";
        }
        String[] names = LockedMethod.PARAMETER_NAMES.getParameterNames(method);
        if (names == null) {
            return method.getParameterCount() == 0 ? "but the method has no parameters"
                    : "but the parameters' names are not in the class file (compile with -parameters, or use #p0, #p1, ...)";
        }
        List<String> known = new ArrayList<>(List.of(names));
        return known.contains(variable) ? null : "but the method's parameters are " + known;
    }
}
