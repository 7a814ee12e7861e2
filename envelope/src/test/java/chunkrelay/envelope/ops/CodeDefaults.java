package chunkrelay.envelope.ops;

import io.micronaut.context.annotation.Parameter;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.bind.annotation.Bindable;
import io.micronaut.core.naming.NameUtils;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The default the relay's code gives each key it reads, as {@link ConfigurationDocsTest} compares it with the
 * reference: the value the relay's {@code application.yml} sets, where it sets the key (it wins over the code);
 * else the {@code @Bindable(defaultValue)} of a configuration record's component; else the {@code ${key:default}}
 * of a {@code @Value}; else, for a configuration type whose unset properties take a plain-Java settings object's
 * defaults ({@code relay.otlp}, {@code relay.storage.s3}), that object's value of the same name, in the reference's
 * notation ({@code 5s}, {@code 256MB}, {@code gzip}). A key with none of these has no default in the code.
 */
final class CodeDefaults {
    private static final long MIB = 1024 * 1024;
    private static final Pattern VALUE_DEFAULT = Pattern.compile("\\$\\{([a-z0-9.-]+):([^}]*)}");

    private CodeDefaults() {
    }

    /** Key to default; {@code prefixes} gives a configuration record's full prefix (null for other classes). */
    static Map<String, String> of(List<Class<?>> classes, Function<Class<?>, String> prefixes,
                                  Map<String, Object> applicationYml) throws NoSuchMethodException {
        Map<String, String> defaults = new TreeMap<>();
        for (Class<?> type : classes) {
            String prefix = prefixes.apply(type);
            if (prefix != null && type.isRecord()) {
                RecordComponent[] components = type.getRecordComponents();
                java.lang.reflect.Parameter[] parameters = type.getDeclaredConstructor(
                        Stream.of(components).map(RecordComponent::getType).toArray(Class<?>[]::new)).getParameters();
                for (int i = 0; i < components.length; i++) {
                    // @Bindable targets parameters and methods: a record's lands on its canonical constructor
                    Bindable bindable = parameters[i].getAnnotation(Bindable.class);
                    if (bindable != null && !parameters[i].isAnnotationPresent(Parameter.class)) {
                        defaults.put(prefix + "." + NameUtils.hyphenate(components[i].getName()),
                                bindable.defaultValue());
                    }
                }
            }
            List<AnnotatedElement> annotated = new ArrayList<>(List.of(type.getDeclaredFields()));
            List<Executable> executables = new ArrayList<>(List.of(type.getDeclaredConstructors()));
            executables.addAll(List.of(type.getDeclaredMethods()));
            executables.forEach(e -> annotated.addAll(List.of(e.getParameters())));
            for (AnnotatedElement element : annotated) {
                Value value = element.getAnnotation(Value.class);
                Matcher reference = value == null ? null : VALUE_DEFAULT.matcher(value.value());
                while (reference != null && reference.find()) {
                    defaults.putIfAbsent(reference.group(1), reference.group(2));
                }
            }
        }
        applicationYml.forEach((key, value) -> defaults.put(key, String.valueOf(value)));
        return defaults;
    }

    /**
     * The defaults the {@code properties} of a configuration type under {@code prefix} take from {@code settings}
     * (built with nothing set): each property's value from the settings' accessor of the same name, or of
     * {@code aliases}' name.
     */
    static Map<String, String> ofSettings(String prefix, Collection<String> properties, Object settings,
                                          Map<String, String> aliases) throws ReflectiveOperationException {
        Map<String, String> defaults = new TreeMap<>();
        for (String property : properties) {
            String name = aliases.getOrDefault(property, property);
            java.lang.reflect.Method accessor;
            try {
                accessor = settings.getClass().getMethod(name);
            } catch (NoSuchMethodException notInTheSettings) {
                continue;
            }
            Object value = accessor.invoke(settings);
            if (value != null) {
                defaults.put(prefix + "." + NameUtils.hyphenate(property), notation(value));
            }
        }
        return defaults;
    }

    /** A value as the reference writes it: durations in their largest whole unit of s or ms, sizes in MB. */
    private static String notation(Object value) {
        if (value instanceof Duration duration) {
            return duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms";
        }
        if (value instanceof Long bytes && bytes >= MIB && bytes % MIB == 0) {
            return bytes / MIB + "MB";
        }
        if (value instanceof Enum<?> constant) {
            return constant.name().toLowerCase(Locale.ROOT);
        }
        return String.valueOf(value);
    }
}
