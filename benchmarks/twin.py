"""A PyTorch twin of mtcli's model (same architecture, parameter count, masks, dropout, label
smoothing, output layer on real target tokens only), for benchmarks. Never imported by mtcli."""

from __future__ import annotations

import math

import torch
from torch import nn

from mtcli.config import ModelConfig, TrainConfig
from mtcli.tokenizer import BOS, CASE_FACTORS, EOS, PAD


def _sinusoid(n, d):
    pos = torch.arange(n)[:, None].float()
    i = torch.arange(d)[None, :]
    angle = pos / 10000 ** (2 * (i // 2) / d)
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


class Twin(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        C = cfg.d_model
        self.cfg = cfg
        self.src_emb = nn.Embedding(cfg.src_vocab, C)
        self.tgt_emb = nn.Embedding(cfg.tgt_vocab, C)
        # source ids of case-factored data are piece + vocabulary * case: the case's embedding is added
        self.src_case = nn.Embedding(CASE_FACTORS, C) if cfg.case_factors else None
        self.register_buffer("pe_src", _sinusoid(cfg.max_src_len, C))
        self.register_buffer("pe_tgt", _sinusoid(cfg.max_tgt_len, C))
        # post-norm layers, ReLU, no final norm: the thesis's blocks, same parameter count as mtcli
        enc = nn.TransformerEncoderLayer(C, cfg.n_heads, cfg.d_ff, cfg.dropout, batch_first=True)
        dec = nn.TransformerDecoderLayer(C, cfg.n_heads, cfg.d_ff, cfg.dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc, cfg.n_layers, enable_nested_tensor=False)
        self.decoder = nn.TransformerDecoder(dec, cfg.n_layers)
        self.out = nn.Linear(C, cfg.tgt_vocab)
        self.drop = nn.Dropout(cfg.dropout)

    def _embed(self, ids, emb, pe, case=None):
        if case is None:
            return self.drop(emb(ids) * math.sqrt(self.cfg.d_model) + pe[: ids.shape[1]])
        factor, ids = ids.div(emb.num_embeddings, rounding_mode="floor"), ids % emb.num_embeddings
        return self.drop(emb(ids) * math.sqrt(self.cfg.d_model) + pe[: ids.shape[1]] + case(factor))

    def encode(self, src):
        x = self._embed(src, self.src_emb, self.pe_src, self.src_case)
        return self.encoder(x, src_key_padding_mask=src == PAD)

    def decode(self, tgt_in, memory, src):
        T = tgt_in.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # True = masked, like the pads
        y = self._embed(tgt_in, self.tgt_emb, self.pe_tgt)
        return self.decoder(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_in == PAD,
                            memory_key_padding_mask=src == PAD)

    def loss(self, src, tgt_in, tgt_out, smoothing):
        y = self.decode(tgt_in, self.encode(src), src)
        valid = tgt_out != PAD
        return nn.functional.cross_entropy(self.out(y[valid]), tgt_out[valid], label_smoothing=smoothing)

    @torch.no_grad()
    def greedy(self, src, max_len, stop_at_eos=True):
        """Greedy decoding with a key/value cache of the decoder's past (the incremental decoding a
        PyTorch user would write; nn.TransformerDecoder has none built in)."""
        memory = self.encode(src)
        pad = src == PAD
        B, C, H = src.shape[0], self.cfg.d_model, self.cfg.n_heads
        layers = list(self.decoder.layers)
        cross = []
        for layer in layers:
            w, b = layer.multihead_attn.in_proj_weight, layer.multihead_attn.in_proj_bias
            k = nn.functional.linear(memory, w[C : 2 * C], b[C : 2 * C])
            v = nn.functional.linear(memory, w[2 * C :], b[2 * C :])
            cross.append((k, v))
        past = [(memory.new_zeros(B, 0, C), memory.new_zeros(B, 0, C)) for _ in layers]
        tok = torch.full((B,), BOS, dtype=torch.long)
        out = []
        for t in range(max_len):
            y = self.tgt_emb(tok)[:, None] * math.sqrt(C) + self.pe_tgt[t]
            for i, layer in enumerate(layers):
                sa = layer.self_attn
                w, b = sa.in_proj_weight, sa.in_proj_bias
                q, k, v = nn.functional.linear(y, w, b).split(C, dim=-1)
                k, v = torch.cat([past[i][0], k], 1), torch.cat([past[i][1], v], 1)
                past[i] = (k, v)
                y = layer.norm1(y + sa.out_proj(_attend(q, k, v, H, None)))
                ca = layer.multihead_attn
                q = nn.functional.linear(y, ca.in_proj_weight[:C], ca.in_proj_bias[:C])
                y = layer.norm2(y + ca.out_proj(_attend(q, *cross[i], H, pad)))
                y = layer.norm3(y + layer.linear2(torch.relu(layer.linear1(y))))
            tok = self.out(y[:, 0]).argmax(-1)
            out.append(tok)
            if stop_at_eos and bool((tok == EOS).all()):
                break
        return torch.stack(out, 1)


def _attend(q, k, v, H, key_pad):
    B, Tq, C = q.shape
    split = lambda x: x.view(B, x.shape[1], H, C // H).transpose(1, 2)  # noqa: E731
    mask = None if key_pad is None else ~key_pad[:, None, None, :]
    o = nn.functional.scaled_dot_product_attention(split(q), split(k), split(v), attn_mask=mask)
    return o.transpose(1, 2).reshape(B, Tq, C)


# Adam's implementations: PyTorch's fastest eager one on a CPU is the fused kernel (PyTorch >= 2.4; its
# default there is the per-tensor loop), measured with `python -m benchmarks.compare --torch-setups`
ADAM = {"fused": {"fused": True}, "foreach": {"foreach": True}, "default": {}}


def make_optimizer(model: Twin, tcfg: TrainConfig, adam: str = "fused"):
    return torch.optim.Adam(model.parameters(), lr=1e-3, betas=(tcfg.beta1, tcfg.beta2), eps=tcfg.eps, **ADAM[adam])


def train_step(model: Twin, opt, batch, tcfg: TrainConfig, lr: float, zero_grads: bool = False) -> float:
    """zero_grads: gradients zeroed in a pass of their own before the step, instead of dropped (PyTorch's
    default, and faster)."""
    src, tgt_in, tgt_out = (torch.from_numpy(x).long() for x in (batch.src, batch.tgt_in, batch.tgt_out))
    for group in opt.param_groups:
        group["lr"] = lr
    opt.zero_grad(set_to_none=not zero_grads)
    loss = model.loss(src, tgt_in, tgt_out, tcfg.label_smoothing)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), tcfg.clip_norm)
    opt.step()
    return loss.item()
