package dev.apx;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The package layout's rules (README, "Layout"), checked on apx's compiled classes: a newcomer can
 * trust the folder names because a change that breaks them fails here.
 */
class LayoutTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.apx");
    }

    @Test
    void noPackageDependsOnItselfThroughAnother() {
        // each package (sub-packages apart: server.http1 is not server) is one node; no cycle among them
        slices().matching("dev.apx.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void onlyThePythonLayerTouchesForeignMemory() {
        noClasses().that().resideOutsideOfPackages("dev.apx.python..")
                .should().dependOnClassesThat().resideInAPackage("java.lang.foreign..").check(classes);
    }

    @Test
    void onlyTheCApiBindsCFunctions() {
        noClasses().that().resideOutsideOfPackage("dev.apx.python.capi")
                .should().dependOnClassesThat().haveFullyQualifiedName("java.lang.foreign.Linker").check(classes);
    }

    @Test
    void theServerKnowsNoPythonAndNoProtocolAboveIt() {
        noClasses().that().resideInAPackage("dev.apx.server..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.apx.python..", "dev.apx.bridge..", "dev.apx.asgi..",
                        "dev.apx.wsgi..", "dev.apx.app..", "dev.apx.cli..", "dev.apx.metrics..", "dev.apx.supervisor..")
                .check(classes);
    }

    @Test
    void theAppContractCarriesNoNettyTypes() {
        noClasses().that().resideInAPackage("dev.apx.server.api")
                .should().dependOnClassesThat().resideInAPackage("io.netty..").check(classes);
    }

    @Test
    void wsgiAndAsgiShareOnlyTheAppPackage() {
        noClasses().that().resideInAPackage("dev.apx.wsgi..").should().dependOnClassesThat().resideInAPackage("dev.apx.asgi..")
                .check(classes);
        noClasses().that().resideInAPackage("dev.apx.asgi..").should().dependOnClassesThat().resideInAPackage("dev.apx.wsgi..")
                .check(classes);
    }

    @Test
    void theSupervisorNeverLoadsPython() {
        noClasses().that().resideInAPackage("dev.apx.supervisor..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.apx.python..", "dev.apx.bridge..", "dev.apx.asgi..", "dev.apx.wsgi..")
                .check(classes);
    }

    @Test
    void thePublicApiNeverDependsOnTheCommandLine() {
        noClasses().that().resideInAnyPackage("dev.apx", "dev.apx.config..", "dev.apx.servlet..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.apx.cli..").check(classes);
    }

    @Test
    void onlyTheCommandLineUsesPicocli() {
        noClasses().that().resideOutsideOfPackage("dev.apx.cli..")
                .should().dependOnClassesThat().resideInAPackage("picocli..").check(classes);
    }

    @Test
    void theConfigurationDependsOnNothingOfApxs() {
        noClasses().that().resideInAPackage("dev.apx.config..")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.apx.config..", "java..")
                .check(classes);
    }

    @Test
    void theServeLifecycleKnowsNoCommandLine() {
        noClasses().that().resideInAPackage("dev.apx.serve..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.apx.cli..", "picocli..").check(classes);
    }
}
