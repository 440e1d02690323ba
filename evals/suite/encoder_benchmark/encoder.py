import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 512):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class TextEncoder(nn.Module):
    """Token embedding + transformer encoder + mean pooling, as used for sentence embeddings."""

    def __init__(self, vocab_size=1000, d_model=128, nhead=4, num_layers=2, dim_feedforward=256, embed_dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.pos = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.proj = nn.Linear(d_model, embed_dim)

    def forward(self, tokens):
        mask = tokens == 0
        h = self.encoder(self.pos(self.embed(tokens)), src_key_padding_mask=mask)
        h = self.norm(h).masked_fill(mask.unsqueeze(-1), 0.0)
        pooled = h.sum(1) / (~mask).sum(1, keepdim=True).clamp(min=1)
        return self.proj(pooled)
