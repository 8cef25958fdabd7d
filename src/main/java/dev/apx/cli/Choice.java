package dev.apx.cli;

import dev.apx.config.Interface;
import dev.apx.config.IoMode;
import dev.apx.config.LogLevel;
import dev.apx.config.LoopKind;
import dev.apx.config.WarmupMode;

import picocli.CommandLine;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * An option whose value is one of an enum's constants, any case. A bad value is a usage error at
 * parse time (exit 2, before Python starts), worded like click's:
 * {@code Invalid value for '--loop': 'foo' is not one of 'auto', 'asyncio', 'uvloop'.}
 */
class Choice<E extends Enum<E>> implements CommandLine.ITypeConverter<E> {
    private final Class<E> type;

    Choice(Class<E> type) {
        this.type = type;
    }

    @Override
    public E convert(String value) {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(value)) {
                return constant;
            }
        }
        throw new CommandLine.TypeConversionException("'" + value + "' is not one of "
                + Arrays.stream(type.getEnumConstants()).map(c -> "'" + c.name().toLowerCase(Locale.ROOT) + "'")
                .collect(Collectors.joining(", ")) + ".");
    }

    static final class Loop extends Choice<LoopKind> {
        Loop() {
            super(LoopKind.class);
        }
    }

    static final class Io extends Choice<IoMode> {
        Io() {
            super(IoMode.class);
        }
    }

    static final class Warmup extends Choice<WarmupMode> {
        Warmup() {
            super(WarmupMode.class);
        }
    }

    static final class LifespanMode extends Choice<dev.apx.config.LifespanMode> {
        LifespanMode() {
            super(dev.apx.config.LifespanMode.class);
        }
    }

    static final class Level extends Choice<LogLevel> {
        Level() {
            super(LogLevel.class);
        }
    }

    static final class InterfaceKind extends Choice<Interface> {
        InterfaceKind() {
            super(Interface.class);
        }
    }
}
