//! A file's summary says what the file is: its header, else its main definition's
//! doc comment, else nothing; never the comment above one line in the middle of it.
//! One fixture per language and per source of the summary.

use deepdiscovery_core::Language;
use deepdiscovery_core::facts::{DocSource, extract};

/// What the summary of a fixture must be: its text's start and its source.
enum Want {
    Header(&'static str),
    Definition(&'static str, &'static str),
    Nothing,
}

fn check(language: Language, path: &str, text: &str, want: Want) {
    let facts = extract(language, path, text);
    let got = (facts.doc.as_deref(), facts.doc_from.clone());
    match want {
        Want::Header(start) => {
            assert_eq!(got.1, Some(DocSource::Header), "{path}: {got:?}");
            assert!(
                got.0.is_some_and(|d| d.starts_with(start)),
                "{path}: {got:?}"
            );
        }
        Want::Definition(name, start) => {
            assert_eq!(
                got.1,
                Some(DocSource::Definition(name.into())),
                "{path}: {got:?}"
            );
            assert!(
                got.0.is_some_and(|d| d.starts_with(start)),
                "{path}: {got:?}"
            );
        }
        Want::Nothing => assert_eq!(got, (None, None), "{path}"),
    }
}

#[test]
fn python_module_docstring_else_the_main_class_never_a_constant_comment() {
    check(
        Language::Python,
        "pkg/dataset.py",
        "import numpy as np\n\n# list of attributes of DatetimeIndex that are ndarrays of time info\n\
         _DATETIMEINDEX_COMPONENTS = ['year', 'month']\n\n\
         def _helper(x):\n    return x\n\n\
         class Dataset:\n    \"\"\"A multi-dimensional, in memory, array database.\n\n    More.\n    \"\"\"\n\n    def __init__(self):\n        pass\n",
        Want::Definition("Dataset", "A multi-dimensional, in memory, array database."),
    );
    check(
        Language::Python,
        "pkg/io.py",
        "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\"\"\"Readers and writers of the netCDF format.\"\"\"\nimport os\n",
        Want::Header("Readers and writers of the netCDF format."),
    );
    // The class named like the file has no docstring: no summary, not the comment
    // above the constant nor another class's docstring.
    check(
        Language::Python,
        "pkg/variable.py",
        "# Copyright 2020 The Authors. Licensed under the Apache License.\n\
         import os\n\n# only for Dataset and DataArray\nBASIC = 1\n\n\
         class Helper:\n    \"\"\"Helps a lot with many things here.\"\"\"\n\n\
         class Variable:\n    def a(self):\n        pass\n",
        Want::Nothing,
    );
    // Titles, tool directives and provenance banners are not what a file is.
    check(
        Language::Python,
        "pkg/gruntz.py",
        "\"\"\"\nLimits\n======\n\nImplemented according to a thesis on limits.\n\"\"\"\nimport os\n",
        Want::Header("Implemented according to a thesis on limits."),
    );
    check(
        Language::Python,
        "pkg/axis3d.py",
        "# axis3d.py, original version by Someone\n# Created: 23 Sep 2005\n\nimport os\n\n\
         class Axis:\n    \"\"\"An axis of a 3D plot.\"\"\"\n\n    def draw(self):\n        pass\n\n    def ticks(self):\n        pass\n",
        Want::Definition("Axis", "An axis of a 3D plot."),
    );
    // No definition named like the file, and none that is most of it: nothing.
    check(
        Language::Python,
        "pkg/helpers.py",
        "class AdminForm:\n    \"\"\"A form in the admin.\"\"\"\n    a = 1\n    b = 2\n\n\
         class Fieldset:\n    \"\"\"A set of fields.\"\"\"\n    a = 1\n    b = 2\n\n\
         def send_file(path):\n    \"\"\"Sends a file to the client.\"\"\"\n    return path\n",
        Want::Nothing,
    );
    // A private definition is never the file's main one, however large.
    check(
        Language::Python,
        "pkg/misc.py",
        "def _impl(a):\n    \"\"\"Private machinery of the module.\"\"\"\n    a = a + 1\n    a = a + 2\n    a = a + 3\n    a = a + 4\n    return a\n\n\
         def run():\n    \"\"\"Runs the machinery.\"\"\"\n    return _impl(1)\n",
        Want::Nothing,
    );
    // No definition named like the file: the largest public one, most of the file.
    check(
        Language::Python,
        "pkg/utils.py",
        "def small():\n    \"\"\"A small helper function.\"\"\"\n    return 1\n\n\
         @cache\ndef large(a, b):\n    \"\"\"Merges two sorted runs into one.\"\"\"\n    x = a\n    y = b\n    z = x + y\n    z = z + 1\n    z = z + 2\n    z = z + 3\n    z = z + 4\n    z = z + 5\n    z = z + 6\n    z = z + 7\n    z = z + 8\n    return z\n\n\
         def _private():\n    \"\"\"Not public at all here.\"\"\"\n    return 1\n",
        Want::Definition("large", "Merges two sorted runs into one."),
    );
}

#[test]
fn java_and_kotlin_docs_on_the_public_class() {
    check(
        Language::Java,
        "src/main/java/shop/OrderService.java",
        "/*\n * Copyright 2024 Shop Inc.\n * Licensed under the Apache License, Version 2.0.\n */\n\
         package shop;\n\nimport java.util.List;\n\n\
         /**\n * Places and cancels orders.\n *\n * @author someone\n */\n\
         @Service\npublic class OrderService {\n    // the queue of pending orders\n    private int pending;\n}\n",
        Want::Definition("OrderService", "Places and cancels orders."),
    );
    check(
        Language::Kotlin,
        "app/src/Cart.kt",
        "package shop\n\nimport kotlin.math.max\n\n\
         /**\n * A shopping cart that keeps its items in order.\n */\nclass Cart {\n    fun add() {}\n}\n",
        Want::Definition("Cart", "A shopping cart that keeps its items in order."),
    );
}

#[test]
fn a_plain_comment_is_no_javadoc() {
    check(
        Language::Java,
        "src/util/Permit.java",
        "package util;\n\n// sunapi suppresses the warning about Unsafe\n@SuppressWarnings(\"all\")\npublic class Permit {\n}\n",
        Want::Nothing,
    );
    check(
        Language::Go,
        "fuzz/formatter_fuzz.go",
        "//go:build gofuzz\n\npackage fuzz\n\n// FuzzFormat feeds random input to the formatter.\nfunc FuzzFormat(data []byte) int {\n\tn := len(data)\n\tif n > 0 {\n\t\treturn 1\n\t}\n\treturn 0\n}\n",
        Want::Definition(
            "FuzzFormat",
            "FuzzFormat feeds random input to the formatter.",
        ),
    );
}

#[test]
fn javascript_and_typescript_jsdoc_on_the_exported_definition() {
    check(
        Language::JavaScript,
        "src/cart.js",
        "import { sum } from './math';\n\n// the tax rate\nconst RATE = 0.2;\n\n\
         /**\n * Keeps the items a customer picked, with their totals.\n */\nexport default class Cart {\n  total() { return sum(this.items); }\n}\n",
        Want::Definition(
            "Cart",
            "Keeps the items a customer picked, with their totals.",
        ),
    );
    check(
        Language::TypeScript,
        "src/parse_config.ts",
        "import fs from 'fs';\n\n\
         /** Parses the configuration file into options. */\nexport function parseConfig(path: string): object {\n  return JSON.parse(fs.readFileSync(path, 'utf8'));\n}\n",
        Want::Definition("parseConfig", "Parses the configuration file into options."),
    );
}

#[test]
fn go_package_comment_else_the_main_type_and_generated_banners_are_skipped() {
    check(
        Language::Go,
        "billing/billing.go",
        "// Package billing computes invoices and their taxes.\npackage billing\n\nfunc Total() int { return 0 }\n",
        Want::Header("Package billing computes invoices and their taxes."),
    );
    check(
        Language::Go,
        "server/server.go",
        "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage server\n\n\
         // maxConns bounds the pool.\nconst maxConns = 10\n\n\
         // Server answers requests from the pool of connections.\ntype Server struct {\n\tpool int\n}\n",
        Want::Definition(
            "Server",
            "Server answers requests from the pool of connections.",
        ),
    );
}

#[test]
fn rust_inner_docs_else_the_documented_struct_past_attributes() {
    check(
        Language::Rust,
        "src/lib.rs",
        "//! Reads ledgers and balances them.\n\nmod ledger;\n",
        Want::Header("Reads ledgers and balances them."),
    );
    check(
        Language::Rust,
        "src/ledger.rs",
        "use std::collections::HashMap;\n\n/// The largest entry allowed.\nconst MAX: u32 = 9;\n\n\
         /// A ledger of accounts and their balances.\n#[derive(Debug, Clone)]\npub struct Ledger {\n    accounts: HashMap<String, i64>,\n}\n",
        Want::Definition("Ledger", "A ledger of accounts and their balances."),
    );
}

#[test]
fn c_and_cpp_header_comments_also_inside_an_include_guard() {
    check(
        Language::C,
        "src/queue.c",
        "/* A bounded queue of jobs for the workers. */\n#include \"queue.h\"\n\nint queue_len(void) { return 0; }\n",
        Want::Header("A bounded queue of jobs for the workers."),
    );
    check(
        Language::C,
        "include/queue.h",
        "#ifndef QUEUE_H\n#define QUEUE_H\n\n/* The queue's public interface. */\n\nint queue_len(void);\n\n#endif\n",
        Want::Header("The queue's public interface."),
    );
    // After the includes, a comment that stands apart describes the file; one
    // attached to the next definition does not.
    check(
        Language::C,
        "src/compile.c",
        "#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n#include <string.h>\n#include \"compile.h\"\n\n\
         /*\n  The intermediate representation of filters, as a list of instructions.\n*/\n\n\
         struct inst { int op; };\n",
        Want::Header("The intermediate representation of filters, as a list of instructions."),
    );
    check(
        Language::C,
        "src/util.c",
        "#include <string.h>\n\n/* Copies at most n bytes of a string. */\nstatic char *copy(const char *s, int n) { return 0; }\n",
        Want::Nothing,
    );
    check(
        Language::Cpp,
        "src/widget.hpp",
        "#pragma once\n#include <string>\n\n\
         /// A widget drawn on the screen, with its label.\nclass Widget {\n public:\n  std::string label;\n};\n",
        Want::Definition("Widget", "A widget drawn on the screen, with its label."),
    );
}

#[test]
fn csharp_ruby_and_php_doc_comments() {
    check(
        Language::CSharp,
        "Shop/OrderService.cs",
        "using System;\n\nnamespace Shop\n{\n    /// <summary>\n    /// Places orders for customers.\n    /// </summary>\n\
         [Serializable]\n    public class OrderService\n    {\n        public void Place() {}\n    }\n}\n",
        Want::Definition("OrderService", "Places orders for customers."),
    );
    check(
        Language::Ruby,
        "lib/shop/cart.rb",
        "# frozen_string_literal: true\n\nmodule Shop\n  # A shopping cart that totals its items.\n  class Cart\n    def total; end\n  end\nend\n",
        Want::Definition("Cart", "A shopping cart that totals its items."),
    );
    check(
        Language::Php,
        "src/MoneyFormatter.php",
        "<?php\n\nnamespace App;\n\nuse NumberFormatter;\n\n\
         /**\n * Formats money amounts for display.\n */\nfinal class MoneyFormatter\n{\n    public function format() {}\n}\n",
        Want::Definition("MoneyFormatter", "Formats money amounts for display."),
    );
}

#[test]
fn a_card_says_where_its_summary_came_from() {
    use deepdiscovery_core::Role;
    use deepdiscovery_core::infer::MetadataCard;
    let text = "class Dataset:\n    \"\"\"A multi-dimensional, in memory, array database.\"\"\"\n";
    let facts = extract(Language::Python, "pkg/dataset.py", text);
    let card = MetadataCard::new(
        "pkg/dataset.py",
        Role::Source,
        Language::Python,
        2,
        Some(&facts),
        &|_| false,
    );
    assert_eq!(card.summary_from.as_deref(), Some("definition Dataset"));
    assert!(card.render().contains(
        "- summary (definition Dataset): A multi-dimensional, in memory, array database."
    ));
}

#[test]
fn a_comment_at_the_end_of_an_import_line_is_never_the_summary() {
    // xarray's core/variable.py had `import xarray as xr  # only for Dataset and
    // DataArray` among its imports: the card quoted it instead of the class's docstring.
    check(
        Language::Python,
        "xarray/core/variable.py",
        "from __future__ import annotations\n\nimport copy\n\
         import xarray as xr  # only for Dataset and DataArray\n\n\
         NON_NANOSECOND_WARNING = 'Converting non-nanosecond precision'\n\n\
         class Variable:\n    \"\"\"A netcdf-like variable consisting of dimensions, data and attributes.\"\"\"\n\n    def copy(self):\n        pass\n",
        Want::Definition(
            "Variable",
            "A netcdf-like variable consisting of dimensions, data and attributes.",
        ),
    );
    check(
        Language::Go,
        "server/run.go",
        "package server\n\nimport \"net/http\" // the standard server\n\nfunc Run() error {\n\treturn nil\n}\n",
        Want::Nothing,
    );
}
