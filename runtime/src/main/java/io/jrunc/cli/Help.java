package io.jrunc.cli;

import java.util.Collection;
import java.util.List;

/** `--help` text, laid out as runc's (urfave/cli) is. */
final class Help {
    private Help() {}

    static String global(List<Flag> flags, Collection<Subcommand> commands) {
        StringBuilder out = new StringBuilder()
                .append("NAME:\n   jrunc - Open Container Initiative runtime written in Java\n\n")
                .append("USAGE:\n   jrunc [global options] command [command options] [arguments...]\n\n")
                .append("VERSION:\n   ").append(Main.VERSION).append("\n\nCOMMANDS:\n");
        int width = 0;
        for (Subcommand c : commands) {
            width = Math.max(width, c.name().length());
        }
        for (Subcommand c : commands) {
            out.append("   ").append(pad(c.name(), width)).append("  ").append(c.description()).append('\n');
        }
        return out.append("\nGLOBAL OPTIONS:\n").append(options(flags)).toString();
    }

    static String command(Subcommand c) {
        return "NAME:\n   jrunc " + c.name() + " - " + c.description() + "\n\n"
                + "USAGE:\n   jrunc " + c.name() + (c.flags().isEmpty() ? "" : " [command options]")
                + (c.argsUsage().isEmpty() ? "" : " " + c.argsUsage()) + "\n"
                + (c.flags().isEmpty() ? "" : "\nOPTIONS:\n" + options(c.flags()));
    }

    private static String options(List<Flag> flags) {
        StringBuilder out = new StringBuilder();
        int width = 0;
        for (Flag f : flags) {
            width = Math.max(width, names(f).length());
        }
        for (Flag f : flags) {
            if (!f.hidden()) {
                out.append("   ").append(pad(names(f), width)).append("  ").append(f.usage()).append('\n');
            }
        }
        return out.toString();
    }

    /** "--bundle value, -b value": two dashes for long names, one for single letters. */
    private static String names(Flag f) {
        StringBuilder s = new StringBuilder();
        for (String n : f.names()) {
            if (!s.isEmpty()) {
                s.append(", ");
            }
            s.append(n.length() == 1 ? "-" : "--").append(n).append(f.takesValue() ? " value" : "");
        }
        return s.toString();
    }

    private static String pad(String s, int width) {
        return s + " ".repeat(width - s.length());
    }
}
