package io.jrunc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Go's flag rules, which runc's callers rely on, and Go's wording for the errors. */
class ArgumentsTest {
    private static final List<Flag> FLAGS = List.of(
            Flag.string("bundle, b", "bundle"),
            Flag.bool("force, f", "force"),
            Flag.integer("preserve-fds", "fds"),
            Flag.list("env, e", "env"));

    private static Arguments parse(String... args) {
        return Arguments.parse(FLAGS, args, 0);
    }

    @Test
    void oneOrTwoDashesAndBothValueForms() {
        for (String[] line : List.of(new String[] {"--bundle", "/b", "id"}, new String[] {"-bundle", "/b", "id"},
                new String[] {"--bundle=/b", "id"}, new String[] {"-b", "/b", "id"}, new String[] {"-b=/b", "id"})) {
            Arguments a = parse(line);
            assertEquals("/b", a.string("bundle", null), String.join(" ", line));
            assertEquals("id", a.positional(0));
        }
    }

    @Test
    void booleansTakeGoValues() {
        assertTrue(parse("--force", "x").flag("force"));
        assertTrue(parse("-f=true", "x").flag("force"));
        assertFalse(parse("--force=false", "x").flag("force"));
        assertFalse(parse("x").flag("force"));
        var e = assertThrows(Arguments.UsageException.class, () -> parse("--force=maybe", "x"));
        assertEquals("invalid boolean value \"maybe\" for -force: parse error", e.getMessage());
    }

    @Test
    void flagsEndAtTheFirstPositionalOrDoubleDash() {
        Arguments a = parse("-e", "A=1", "id", "sh", "-c", "--force");
        assertEquals(List.of("id", "sh", "-c", "--force"), a.positionalFrom(0));
        assertFalse(a.flag("force"));
        assertEquals(List.of("-f"), parse("--", "-f").positionalFrom(0));
        assertEquals(List.of("-"), parse("-").positionalFrom(0), "a lone dash is an argument");
    }

    @Test
    void knownFlagsAfterTheArgumentsMoveInFrontAsUrfaveDoes() {
        Arguments a = Arguments.parse(FLAGS, new String[] {"id", "--force", "--bundle", "/b", "x", "--bogus"}, 0, true);
        assertTrue(a.flag("force"));
        assertEquals("/b", a.string("bundle", null));
        assertEquals(List.of("id", "x", "--bogus"), a.positionalFrom(0), "unknown flags stay where they were");
        Arguments stdin = Arguments.parse(FLAGS, new String[] {"--bundle", "-", "id"}, 0, true);
        assertEquals("-", stdin.string("bundle", null), "update --resources - ID");
        assertEquals(List.of("id"), stdin.positionalFrom(0));
        Arguments notValue = Arguments.parse(FLAGS, new String[] {"--bundle", "/b", "id", "--bogus"}, 0, true);
        assertEquals(List.of("id", "--bogus"), notValue.positionalFrom(0));
        Arguments kept = Arguments.parse(FLAGS, new String[] {"id", "--", "--force"}, 0, true);
        assertFalse(kept.flag("force"), "nothing after -- moves");
        assertEquals(List.of("id", "--", "--force"), kept.positionalFrom(0), "as Go leaves them");
        assertFalse(parse("id", "--force").flag("force"), "without reordering the first argument ends the flags");
    }

    @Test
    void listsKeepEveryValueAndScalarsTheLast() {
        Arguments a = parse("-e", "A=1", "--env=B=2", "-b", "one", "-b", "two");
        assertEquals(List.of("A=1", "B=2"), a.list("env"));
        assertEquals("two", a.string("bundle", null));
        assertNull(a.positional(0));
    }

    @Test
    void errorsUseGoWording() {
        assertEquals("flag provided but not defined: -bogus",
                assertThrows(Arguments.UsageException.class, () -> parse("--bogus")).getMessage());
        assertEquals("flag needs an argument: -bundle",
                assertThrows(Arguments.UsageException.class, () -> parse("--bundle")).getMessage());
        assertEquals("invalid value \"x\" for flag -preserve-fds: parse error",
                assertThrows(Arguments.UsageException.class, () -> parse("--preserve-fds", "x")).getMessage());
        assertEquals("bad flag syntax: ---x",
                assertThrows(Arguments.UsageException.class, () -> parse("---x")).getMessage());
        assertEquals(3, parse("--preserve-fds=3").integer("preserve-fds", 0));
    }

    @Test
    void helpIsAlwaysKnown() {
        assertTrue(parse("--help").helpRequested());
        assertTrue(parse("-h").helpRequested());
    }

    @Test
    void argumentCountsAreRuncs() {
        assertEquals(1, Main.command("state").maxArguments());
        assertTrue(Main.command("state").exactArguments());
        assertEquals(2, Main.command("kill").maxArguments());
        assertEquals(0, Main.command("list").maxArguments());
        assertEquals(-1, Main.command("exec").maxArguments());
        assertEquals(-1, Main.command("ps").maxArguments());
        assertEquals(1, Main.run("--root", "/nonexistent", "state", "a", "b"), "one id only");
        assertEquals(1, Main.run("--root", "/nonexistent", "list", "x"));
        assertEquals(1, Main.run("--root", "/nonexistent", "kill"), "kill needs at least the id");
        assertEquals(1, Main.run("--root", "/nonexistent", "exec"), "exec needs at least the id");
        assertEquals(0, Main.run("--root", "/nonexistent", "list"));
    }

    @Test
    void everyCommandHasHelpAndUniqueFlagNames() {
        for (Subcommand c : Main.commands()) {
            String help = Help.command(c);
            assertTrue(help.startsWith("NAME:\n   jrunc " + c.name() + " - "), help);
            List<String> names = c.flags().stream().flatMap(f -> f.names().stream()).toList();
            assertEquals(names.size(), names.stream().distinct().count(), c.name() + ": " + names);
        }
        assertEquals("list", Main.command("ls").name());
        assertNull(Main.command("checkpoint"));
    }
}
