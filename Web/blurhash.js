// BlurHash (https://blurha.sh) decoding for the Photos view's placeholders: Wolt's decoder, as the format defines it
// (a page of arithmetic; the app loads no third-party script). `placeholder(hash, ratio)` draws the hash into a
// small canvas and returns it as a data URL, for a frame's background until its photo is decoded.
const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";

function decode83(text, from, to) {
  let value = 0;
  for (let index = from; index < to; index += 1) {
    const digit = digits.indexOf(text[index]);
    if (digit < 0) throw new Error(`not a BlurHash: ${text}`);
    value = value * 83 + digit;
  }
  return value;
}

const toLinear = (value) => {
  const v = value / 255;
  return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
};
const toSRGB = (value) => {
  const v = Math.max(0, Math.min(1, value));
  return Math.round(v <= 0.0031308 ? v * 12.92 * 255 : (1.055 * Math.pow(v, 1 / 2.4) - 0.055) * 255);
};
const signSquare = (value) => Math.sign(value) * value * value;

// The hash's pixels at width × height, RGBA.
export function decodeBlurHash(hash, width, height) {
  const size = decode83(hash, 0, 1);
  const columns = (size % 9) + 1;
  const rows = Math.floor(size / 9) + 1;
  if (hash.length !== 4 + 2 * columns * rows) throw new Error(`not a BlurHash: ${hash}`);
  const maximum = (decode83(hash, 1, 2) + 1) / 166;
  const colors = [];
  const dc = decode83(hash, 2, 6);
  colors.push([toLinear(dc >> 16), toLinear((dc >> 8) & 255), toLinear(dc & 255)]);
  for (let index = 1; index < columns * rows; index += 1) {
    const value = decode83(hash, 4 + index * 2, 6 + index * 2);
    colors.push([Math.floor(value / 361), Math.floor(value / 19) % 19, value % 19]
      .map((quantised) => signSquare((quantised - 9) / 9) * maximum));
  }
  const pixels = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let red = 0, green = 0, blue = 0;
      for (let j = 0; j < rows; j += 1) {
        for (let i = 0; i < columns; i += 1) {
          const basis = Math.cos(Math.PI * x * i / width) * Math.cos(Math.PI * y * j / height);
          const color = colors[i + j * columns];
          red += color[0] * basis;
          green += color[1] * basis;
          blue += color[2] * basis;
        }
      }
      const at = 4 * (x + y * width);
      pixels[at] = toSRGB(red);
      pixels[at + 1] = toSRGB(green);
      pixels[at + 2] = toSRGB(blue);
      pixels[at + 3] = 255;
    }
  }
  return pixels;
}

// A data URL of the hash drawn 32 pixels wide at `ratio` (height / width); null for no hash or a bad one.
export function placeholder(hash, ratio) {
  if (typeof hash !== "string") return null;
  const width = 32;
  const height = Math.max(1, Math.min(64, Math.round(width * ratio)));
  try {
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d");
    context.putImageData(new ImageData(decodeBlurHash(hash, width, height), width, height), 0, 0);
    return canvas.toDataURL();
  } catch {
    return null;
  }
}
