//! What cannot be sized is an error naming the field or option, the fit searches end exactly at
//! the limit, and no input panics.

use super::*;

#[test]
fn unknown_architectures_are_named_never_guessed() {
    let e = read_config(&edit(
        LLAMA_2_7B,
        "architectures",
        Some(r#"["FalconForCausalLM"]"#),
    ))
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnknownModel);
    assert_eq!(e.field.as_deref(), Some("architectures"));
    assert!(e.message.contains("\"FalconForCausalLM\""), "{e}");
    assert!(
        e.message.contains("LlamaForCausalLM, MistralForCausalLM"),
        "{e}"
    );
    let by_type = edit(
        &edit(LLAMA_2_7B, "architectures", None),
        "model_type",
        Some("\"falcon\""),
    );
    assert_eq!(
        read_config(&by_type).unwrap_err().field.as_deref(),
        Some("model_type")
    );
    let llama = edit(LLAMA_2_7B, "architectures", None);
    assert_eq!(config(&llama).architecture, Architecture::Llama);
}

#[test]
fn missing_and_bad_fields_are_named() {
    let e = read_config(&edit(LLAMA_3_8B, "num_key_value_heads", None)).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("num_key_value_heads"));
    assert!(e.message.starts_with("missing"), "{e}");
    let e = read_config(&edit(LLAMA_3_8B, "hidden_size", Some("\"4096\""))).unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (ErrorKind::Syntax, Some("hidden_size"))
    );
    let e = read_config(&edit(LLAMA_3_8B, "num_hidden_layers", Some("1e9"))).unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (ErrorKind::OutOfRange, Some("num_hidden_layers"))
    );
    let e = read_config(&edit(LLAMA_3_8B, "num_key_value_heads", Some("5"))).unwrap_err();
    assert!(e.message.contains("must divide"), "{e}");
    let e = read_config(&edit(GEMMA_2B, "head_dim", None)).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("head_dim"));
    let e = read_config(&edit(
        QWEN1_5_MOE_GPTQ,
        "quantization_config",
        Some(r#"{"quant_method": "gptq", "bits": 4, "group_size": "x"}"#),
    ))
    .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("quantization_config.group_size"));
    assert_eq!(read_config("[1]").unwrap_err().kind, ErrorKind::Syntax);
    assert_eq!(read_config("{").unwrap_err().kind, ErrorKind::Syntax);
    let huge = " ".repeat(MAX_CONFIG_BYTES + 1);
    assert_eq!(read_config(&huge).unwrap_err().kind, ErrorKind::TooLarge);
}

#[test]
fn options_and_defaults_that_cannot_be_settled_are_errors_naming_them() {
    let no_dtype = config(&edit(LLAMA_3_8B, "torch_dtype", None));
    let e = size(&no_dtype, &SizeOptions::default()).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("dtype"));
    let int4 = SizeOptions {
        dtype: Some(Dtype::Int4),
        ..Default::default()
    };
    assert_eq!(
        size(&no_dtype, &int4).unwrap_err().field.as_deref(),
        Some("kv_dtype")
    );
    let with_kv = SizeOptions {
        kv_dtype: Some(Dtype::Fp16),
        ..int4
    };
    assert_eq!(
        size(&no_dtype, &with_kv).unwrap().precision.compute,
        Dtype::Fp16
    );
    let no_context = config(&edit(LLAMA_3_8B, "max_position_embeddings", None));
    assert_eq!(
        size(&no_context, &SizeOptions::default())
            .unwrap_err()
            .field
            .as_deref(),
        Some("context")
    );
    let zero = SizeOptions {
        concurrency: Some(0),
        ..Default::default()
    };
    assert_eq!(
        size(&config(LLAMA_3_8B), &zero)
            .unwrap_err()
            .field
            .as_deref(),
        Some("concurrency")
    );
    let huge = SizeOptions {
        context: Some(MAX_CONTEXT),
        concurrency: Some(MAX_CONCURRENCY),
        ..Default::default()
    };
    let e = size(&config(LLAMA_3_8B), &huge).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfRange);
}

#[test]
fn the_longest_context_and_the_most_sequences_fit_exactly() {
    let c = config(LLAMA_3_8B);
    let budget = 40 << 30;
    let one = SizeOptions {
        concurrency: Some(2),
        ..Default::default()
    };
    // Capped by the model's 8192 positions.
    assert_eq!(max_context(&c, &one, budget).unwrap(), 8192);
    let long = config(&edit(
        LLAMA_3_8B,
        "max_position_embeddings",
        Some("1000000"),
    ));
    let n = max_context(&long, &one, budget).unwrap();
    let total = |context: u64| {
        size(
            &long,
            &SizeOptions {
                context: Some(context),
                ..one
            },
        )
        .unwrap()
        .total_bytes
    };
    assert!(total(n) <= budget && total(n + 1) > budget, "{n}");
    let ctx = SizeOptions {
        context: Some(8192),
        ..Default::default()
    };
    let seqs = max_concurrency(&c, &ctx, budget).unwrap();
    let total = |n: u64| {
        size(
            &c,
            &SizeOptions {
                concurrency: Some(n),
                ..ctx
            },
        )
        .unwrap()
        .total_bytes
    };
    assert!(total(seqs) <= budget && total(seqs + 1) > budget, "{seqs}");
    // Weights that do not fit are an error; weights that leave no room for a token give 0.
    let e = max_context(&c, &one, 1 << 30).unwrap_err();
    assert!(e.message.contains("weights and overheads alone"), "{e}");
    let fixed = fixed(&c, &one).unwrap().bytes as u64;
    assert_eq!(max_context(&c, &one, fixed).unwrap(), 0);
    assert_eq!(max_concurrency(&c, &ctx, fixed).unwrap(), 0);
}

/// Text that is often almost a config.json: its keys and values glued together, or anything.
fn config_text() -> impl Strategy<Value = String> {
    let keys = prop::sample::select(vec![
        "architectures",
        "model_type",
        "hidden_size",
        "num_attention_heads",
        "num_hidden_layers",
        "num_key_value_heads",
        "vocab_size",
        "intermediate_size",
        "head_dim",
        "torch_dtype",
        "tie_word_embeddings",
        "num_local_experts",
        "num_experts",
        "num_experts_per_tok",
        "moe_intermediate_size",
        "shared_expert_intermediate_size",
        "n_routed_experts",
        "n_shared_experts",
        "first_k_dense_replace",
        "moe_layer_freq",
        "kv_lora_rank",
        "q_lora_rank",
        "qk_nope_head_dim",
        "qk_rope_head_dim",
        "v_head_dim",
        "max_position_embeddings",
        "quantization_config",
        "quant_method",
        "bits",
        "group_size",
        "weight_block_size",
        "decoder_sparse_step",
        "mlp_only_layers",
        "attention_bias",
    ]);
    let values = prop::sample::select(vec![
        "0",
        "1",
        "2",
        "7",
        "64",
        "128",
        "4096",
        "-1",
        "1.5",
        "1e30",
        "18446744073709551615",
        "1048576",
        "true",
        "false",
        "null",
        "\"x\"",
        "[]",
        "{}",
        "[128, 128]",
        "[0, 1]",
        "\"bfloat16\"",
        "\"float32\"",
        "\"fp8\"",
        "\"gptq\"",
        "\"noaux_tc\"",
        "[\"LlamaForCausalLM\"]",
        "[\"MixtralForCausalLM\"]",
        "[\"Qwen2MoeForCausalLM\"]",
        "[\"DeepseekV3ForCausalLM\"]",
        "[\"GPTNeoXForCausalLM\"]",
        "[\"Phi3ForCausalLM\"]",
        "[\"Gemma2ForCausalLM\"]",
        "[\"Qwen3MoeForCausalLM\"]",
        "{\"quant_method\": \"gptq\", \"bits\": 4}",
    ]);
    prop_oneof![
        prop::collection::vec((keys, values), 0..30).prop_map(|kv| {
            let body: Vec<String> = kv.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{{}}}", body.join(", "))
        }),
        any::<String>(),
    ]
}

proptest! {
    #[test]
    fn no_input_panics(text in config_text(), context in any::<u64>(), n in any::<u64>(), budget in any::<u64>()) {
        if let Ok(c) = read_config(&text) {
            for options in [
                SizeOptions::default(),
                SizeOptions { dtype: Some(Dtype::Int4), context: Some(context), concurrency: Some(n), ..Default::default() },
                SizeOptions { kv_dtype: Some(Dtype::Int4), context: Some(context % 100_000 + 1), ..Default::default() },
            ] {
                if let Ok(s) = size(&c, &options) {
                    prop_assert!(s.total_bytes <= crate::memory::MAX_MEMORY);
                }
                let _ = max_context(&c, &options, budget);
                let _ = max_concurrency(&c, &options, budget);
            }
        }
    }

    #[test]
    fn the_largest_fit_is_exact(budget in 16u64 << 30..200 << 30, sequences in 1u64..64) {
        let c = config(&edit(MIXTRAL_8X7B, "max_position_embeddings", Some("100000000")));
        let options = SizeOptions { concurrency: Some(sequences), ..Default::default() };
        if let Ok(n) = max_context(&c, &options, budget) {
            let total = |context: u64| size(&c, &SizeOptions { context: Some(context), ..options }).map(|s| s.total_bytes);
            if n > 0 {
                prop_assert!(total(n).unwrap() <= budget);
            }
            prop_assert!(total(n + 1).unwrap() > budget);
        }
    }
}
