//! Language detection and artifact roles by ecosystem conventions.

use deepdiscovery_core::{Language, Role};

#[test]
fn languages_by_name_extension_and_shebang() {
    let cases = [
        ("Dockerfile", None, Language::Dockerfile),
        ("services/api/Dockerfile.prod", None, Language::Dockerfile),
        ("Makefile", None, Language::Makefile),
        ("CMakeLists.txt", None, Language::CMake),
        ("package.json", None, Language::Json),
        ("pom.xml", None, Language::Xml),
        ("app/Gemfile", None, Language::Ruby),
        ("src/main.rs", None, Language::Rust),
        ("web/App.tsx", None, Language::Tsx),
        ("include/x.h", None, Language::Cpp),
        ("lib/x.c", None, Language::C),
        ("build.gradle.kts", None, Language::Kotlin),
        ("conf/app.properties", None, Language::Properties),
        ("setup.cfg", None, Language::Ini),
        (".env.local", None, Language::Env),
        (
            "bin/tool",
            Some(&b"#!/usr/bin/env python3\nprint(1)\n"[..]),
            Language::Python,
        ),
        (
            "bin/run",
            Some(&b"#!/bin/bash\necho hi\n"[..]),
            Language::Shell,
        ),
        (
            "bin/serve",
            Some(&b"#!/usr/bin/env -S node --harmony\n"[..]),
            Language::JavaScript,
        ),
        ("bin/blob", Some(&b"\x7fELF"[..]), Language::Unknown),
        (".hidden", None, Language::Unknown),
    ];
    for (path, head, expected) in cases {
        assert_eq!(Language::detect(path, head), expected, "{path}");
    }
}

#[test]
fn roles_follow_ecosystem_conventions() {
    let cases = [
        ("src/shop/orders.py", Role::Source),
        ("tests/test_orders.py", Role::Test),
        ("shop/test_orders.py", Role::Test),
        ("shop/orders_test.go", Role::Test),
        ("src/test/java/com/acme/OrderServiceTest.java", Role::Test),
        ("src/main/java/com/acme/OrderService.java", Role::Source),
        ("web/src/cart.spec.ts", Role::Test),
        ("web/src/cart.test.tsx", Role::Test),
        ("spec/models/user_spec.rb", Role::Test),
        ("conftest.py", Role::Test),
        ("src/main/resources/application.yml", Role::Config),
        ("config/settings.py", Role::Config),
        ("myproject/settings.py", Role::Config),
        ("mysite/settings/production.py", Role::Config),
        ("django/conf/global_settings.py", Role::Config),
        ("django/conf/__init__.py", Role::Source),
        ("pylint/config/argument.py", Role::Source),
        (".env", Role::Config),
        ("Cargo.toml", Role::Build),
        ("web/package.json", Role::Build),
        ("pom.xml", Role::Build),
        ("requirements-dev.txt", Role::Build),
        ("Dockerfile", Role::Build),
        ("README.md", Role::Docs),
        ("docs/guide/intro.py", Role::Docs),
        ("website/templates/features/Builder.html", Role::Docs),
        ("db/schema.sql", Role::Schema),
        ("proto/orders.proto", Role::Schema),
        ("app/migrations/0001_initial.py", Role::Schema),
        ("db/migrations/V2__add_index.sql", Role::Schema),
        ("src/Migrations/Version20200101120000.php", Role::Schema),
        (
            "migrations/versions/ae1027a6acf_add_orders.py",
            Role::Schema,
        ),
        ("migrations/20230101-create-user.js", Role::Schema),
        ("django/db/migrations/autodetector.py", Role::Source),
        ("django/db/migrations/operations/models.py", Role::Source),
        ("scripts/release.py", Role::Script),
        ("release/fabfile.py", Role::Script),
        ("src/release/notes.py", Role::Source),
        ("deploy.sh", Role::Script),
        ("assets/data.csv", Role::Other),
        ("examples/todo/app.js", Role::Example),
        ("packages/ui/demo/list.jsx", Role::Example),
        ("benches/query.rs", Role::Example),
        ("benches/src/todo.html", Role::Example),
        ("examples/README.md", Role::Docs),
        ("examples/tests/test_app.py", Role::Test),
        ("docs/examples/plot.py", Role::Docs),
    ];
    for (path, expected) in cases {
        let language = Language::detect(path, None);
        assert_eq!(
            Role::classify(path, language),
            expected,
            "{path} ({language})"
        );
    }
}
